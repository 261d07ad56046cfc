package realtime

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// fifo is the policy of a burst: SCHED_FIFO at the lowest real-time
// priority, so that kernel threads and anything else real-time on the host
// still come first, and not inherited by threads started meanwhile.
func fifo() *unix.SchedAttr {
	return &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
}

// Supported reports whether this process may have a burst: it holds
// CAP_SYS_NICE, without which it could make a thread real-time (given an
// RLIMIT_RTPRIO) but not always put it back; the kernel throttles
// real-time threads (sched_rt_runtime_us is not -1), the backstop should
// a burst run away; and the calling thread can be made SCHED_FIFO and put
// back.
func Supported() bool {
	if !capSysNice() || !throttled() {
		return false
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	old, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return false
	}
	if unix.SchedSetAttr(0, fifo(), 0) != nil {
		return false
	}
	return restore(0, old) == nil
}

// capSysNice reports whether CAP_SYS_NICE is in the process's effective
// capabilities.
func capSysNice() bool {
	var data [2]unix.CapUserData
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[0].Effective&(1<<unix.CAP_SYS_NICE) != 0
}

// throttled reports whether the kernel keeps some CPU time from real-time
// threads (sched_rt_runtime_us other than -1, 950 ms in every second by
// default).
func throttled() bool {
	b, err := os.ReadFile("/proc/sys/kernel/sched_rt_runtime_us")
	return err == nil && strings.TrimSpace(string(b)) != "-1"
}

// Burst is one stretch of real-time scheduling of every thread of the
// process; End ends it.
type Burst struct {
	mu    sync.Mutex
	saved []thread // the threads changed, with the policy each had
}

// thread is one thread a Burst changed and what it was before.
type thread struct {
	tid  int
	attr *unix.SchedAttr
}

// Start makes every thread of the process SCHED_FIFO and returns the
// Burst that End undoes. Call it on a goroutine locked to its thread
// (runtime.LockOSThread) that then sleeps until the instant: woken, that
// thread runs at once, ahead of every ordinary process. An error means
// nothing was changed, or what was has been put back.
func Start() (*Burst, error) {
	if !capSysNice() {
		return nil, errors.New("real-time start: no CAP_SYS_NICE")
	}
	tids, err := threads()
	if err != nil {
		return nil, err
	}
	b := &Burst{}
	for _, tid := range tids {
		old, err := unix.SchedGetAttr(tid, 0)
		if err == nil {
			err = unix.SchedSetAttr(tid, fifo(), 0)
		}
		if errors.Is(err, unix.ESRCH) {
			continue // the thread has exited since it was listed
		}
		if err != nil {
			b.End()
			return nil, fmt.Errorf("real-time start: thread %d: %w", tid, err)
		}
		b.saved = append(b.saved, thread{tid: tid, attr: old})
	}
	return b, nil
}

// End puts every thread the burst changed back to the policy it had (or,
// should the kernel refuse that, to ordinary scheduling: see restore). It
// may be called from any goroutine, more than once, and on nil. A thread
// that exited during the burst has nothing to put back: hammer's workers
// end no thread during one, and a burst lasts milliseconds, too short for
// its id to be another's.
func (b *Burst) End() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.saved {
		_ = restore(t.tid, t.attr)
	}
	b.saved = nil
}

// restore puts thread tid (0: the calling one) back to attr. Should the
// kernel refuse, it puts it back keeping the reset-on-fork flag (clearing
// it needs CAP_SYS_NICE, keeping it never does), and should it refuse that
// too (a policy it will not admit again, like SCHED_DEADLINE), it makes
// the thread an ordinary one, so that no thread stays real-time.
func restore(tid int, attr *unix.SchedAttr) error {
	keep := *attr
	keep.Flags |= unix.SCHED_FLAG_RESET_ON_FORK
	ordinary := unix.SchedAttr{Policy: unix.SCHED_NORMAL, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
	var err error
	for _, a := range []*unix.SchedAttr{attr, &keep, &ordinary} {
		if err = unix.SchedSetAttr(tid, a, 0); err == nil || errors.Is(err, unix.ESRCH) {
			return nil
		}
	}
	return err
}

// threads lists the ids of the process's threads.
func threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("real-time start: list threads: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
