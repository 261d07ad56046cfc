//go:build !linux

package worker

import "time"

// sleepUntil blocks until the wall clock reads at (Unix ns) with Go's own
// timer: without Linux's absolute clock_nanosleep and timer slack, the
// workers may wake up to about a millisecond apart (more start skew).
func sleepUntil(at int64) {
	time.Sleep(time.Until(time.Unix(0, at)))
}
