package worker

import (
	"errors"
	"runtime"

	"golang.org/x/sys/unix"
)

// sleepUntil blocks until the wall clock reads at (Unix ns). Go's timers
// wake up to a millisecond late (the runtime's epoll wait counts whole
// milliseconds), by a different amount in each worker process, which
// would show as start skew; an absolute clock_nanosleep on a thread whose
// timer slack is lowered from the default 50 µs to the least wakes within
// tens of microseconds of the instant.
func sleepUntil(at int64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if slack, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err == nil {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
		defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(slack), 0, 0, 0)
	}
	ts := unix.NsecToTimespec(at)
	for {
		// Absolute, so a wake-up by a signal (EINTR) just sleeps again.
		if err := unix.ClockNanosleep(unix.CLOCK_REALTIME, unix.TIMER_ABSTIME, &ts, nil); !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
