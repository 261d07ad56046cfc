package realtime_test

import (
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hammer-load/hammer/internal/realtime"
	"github.com/hammer-load/hammer/internal/realtime/realtimetest"
)

// A burst makes every thread of the process SCHED_FIFO and End puts each
// back; threads the runtime starts meanwhile are ordinary ones.
func TestBurst(t *testing.T) {
	realtimetest.Need(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := realtimetest.Policies(t)
	b, err := realtime.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer b.End()
	during := realtimetest.Policies(t)
	for tid := range before {
		if p, ok := during[tid]; ok && p != unix.SCHED_FIFO {
			t.Errorf("thread %d has policy %d during the burst, want SCHED_FIFO (%d)", tid, p, unix.SCHED_FIFO)
		}
	}

	// Goroutines locked to threads and blocked in the kernel make the
	// runtime start threads of its own for the rest.
	fds := make([]int, 2)
	if err := unix.Pipe(fds); err != nil {
		t.Fatal(err)
	}
	var blocked sync.WaitGroup
	for range 8 {
		blocked.Go(func() {
			runtime.LockOSThread()
			var one [1]byte
			_, _ = unix.Read(fds[0], one[:])
		})
	}
	for range 100 {
		if len(realtimetest.Policies(t)) > len(during)+2 {
			break
		}
		runtime.Gosched()
		unix.Nanosleep(&unix.Timespec{Nsec: 1e6}, nil)
	}
	started := 0
	for tid, p := range realtimetest.Policies(t) {
		if _, old := during[tid]; old {
			continue
		}
		started++
		if p == unix.SCHED_FIFO {
			t.Errorf("thread %d, started during the burst, is SCHED_FIFO: want an ordinary thread", tid)
		}
	}
	if started == 0 {
		t.Error("no thread was started during the burst: nothing checked of them")
	}

	b.End()
	for tid, p := range realtimetest.Policies(t) {
		if p == unix.SCHED_FIFO {
			t.Errorf("thread %d is still SCHED_FIFO after End", tid)
		}
		if old, ok := before[tid]; ok && old != p {
			t.Errorf("thread %d has policy %d after End, had %d before", tid, p, old)
		}
	}
	b.End() // a second End changes nothing
	_, _ = unix.Write(fds[1], make([]byte, 8))
	blocked.Wait()
	_ = unix.Close(fds[0])
	_ = unix.Close(fds[1])
}

// End puts back the policy a thread had, not a default: a thread at nice
// 5 before the burst is at nice 5 after it.
func TestEndRestoresNice(t *testing.T) {
	realtimetest.Need(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	old, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SchedSetAttr(tid, old, 0)
	niced := *old
	niced.Nice = 5
	if err := unix.SchedSetAttr(tid, &niced, 0); err != nil {
		t.Fatal(err)
	}
	b, err := realtime.Start()
	if err != nil {
		t.Fatal(err)
	}
	b.End()
	got, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Policy != old.Policy || got.Nice != 5 {
		t.Errorf("after the burst: policy %d nice %d; want policy %d nice 5", got.Policy, got.Nice, old.Policy)
	}
}

// A thread without CAP_SYS_NICE may not clear its reset-on-fork flag, so
// putting it back as it was fails; restore then puts it back with the
// flag kept, and the thread is no longer real-time.
func TestRestoreWithoutCapSysNice(t *testing.T) {
	realtimetest.Need(t)
	policy := make(chan uint32, 1)
	errs := make(chan error, 1)
	go func() {
		// The thread loses a capability: it must not serve other
		// goroutines afterwards, so the goroutine ends locked to it and
		// the runtime ends the thread.
		runtime.LockOSThread()
		old, err := unix.SchedGetAttr(0, 0)
		if err == nil {
			err = unix.SchedSetAttr(0, realtime.FIFO(), 0)
		}
		if err == nil {
			err = dropCapSysNice() // capabilities are per thread
		}
		if err == nil {
			err = realtime.Restore(0, old)
		}
		attr, gerr := unix.SchedGetAttr(0, 0)
		if err == nil {
			err = gerr
		}
		errs <- err
		if attr != nil {
			policy <- attr.Policy
		}
		close(policy)
	}()
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if p := <-policy; p == unix.SCHED_FIFO {
		t.Error("a thread without CAP_SYS_NICE is still SCHED_FIFO after restore")
	}
}

// dropCapSysNice removes CAP_SYS_NICE from the calling thread's effective
// capabilities.
func dropCapSysNice() error {
	var data [2]unix.CapUserData
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Effective &^= 1 << unix.CAP_SYS_NICE
	return unix.Capset(&hdr, &data[0])
}
