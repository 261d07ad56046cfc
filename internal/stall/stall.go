// Package stall measures how late this host runs a goroutine that is due:
// the scheduling delay a busy machine adds to every timing a test checks.
// A test starts a Meter beside the work it times and widens its timing
// allowance by what the Meter saw, so that the allowance is derived from
// the run, and the test checks hammer, not the host.
package stall

import (
	"sync/atomic"
	"time"
)

// Tick is how often a Meter wakes to see how late it woke.
const Tick = time.Millisecond

// Meter samples the host's scheduling delay until stopped.
type Meter struct {
	worst atomic.Int64
	stop  chan struct{}
	done  chan struct{}
}

// Start starts a Meter: a goroutine that sleeps Tick at a time and keeps
// the largest delay past its due time.
func Start() *Meter {
	m := &Meter{stop: make(chan struct{}), done: make(chan struct{})}
	go m.run()
	return m
}

// run wakes every Tick until stopped, recording how late it woke.
func (m *Meter) run() {
	defer close(m.done)
	t := time.NewTimer(Tick)
	defer t.Stop()
	due := time.Now().Add(Tick)
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			// Not the channel's value: that is when the timer fired, not
			// when this goroutine got to run.
			if late := int64(time.Since(due)); late > m.worst.Load() {
				m.worst.Store(late)
			}
			due = time.Now().Add(Tick)
			t.Reset(Tick)
		}
	}
}

// Worst is the largest delay seen so far.
func (m *Meter) Worst() time.Duration { return time.Duration(m.worst.Load()) }

// Stop stops the Meter and returns the largest delay it saw. It may be
// called more than once.
func (m *Meter) Stop() time.Duration {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
	return m.Worst()
}
