package realtime

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// fifo is the policy of a burst: SCHED_FIFO at the lowest real-time
// priority, so that kernel threads and anything else real-time on the host
// still come first, and not inherited by threads started meanwhile.
func fifo() *unix.SchedAttr {
	return &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
}

// Supported reports whether this process may make its threads real-time:
// it makes the calling thread SCHED_FIFO and puts it back at once.
func Supported() bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	old, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return false
	}
	if unix.SchedSetAttr(0, fifo(), 0) != nil {
		return false
	}
	return unix.SchedSetAttr(0, old, 0) == nil
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
	tids, err := threads()
	if err != nil {
		return nil, err
	}
	b := &Burst{}
	for _, tid := range tids {
		old, err := unix.SchedGetAttr(tid, 0)
		if errors.Is(err, unix.ESRCH) {
			continue // the thread has exited since it was listed
		}
		if err == nil {
			err = unix.SchedSetAttr(tid, fifo(), 0)
		}
		if errors.Is(err, unix.ESRCH) {
			continue
		}
		if err != nil {
			b.End()
			return nil, fmt.Errorf("real-time start: thread %d: %w", tid, err)
		}
		b.saved = append(b.saved, thread{tid: tid, attr: old})
	}
	return b, nil
}

// End puts every thread the burst changed back to the policy it had. It
// may be called from any goroutine, more than once, and on nil.
func (b *Burst) End() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.saved {
		// A thread that has exited (ESRCH) has nothing to put back.
		_ = unix.SchedSetAttr(t.tid, t.attr, 0)
	}
	b.saved = nil
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
