package stall

import (
	"runtime"
	"testing"
	"time"
)

// TestMeterSeesAStall: a Meter whose goroutine cannot run for 50 ms (one
// P, held by a busy loop that never yields to it) sees a delay of about
// that length; an idle host shows much less.
func TestMeterSeesAStall(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	m := Start()
	time.Sleep(10 * Tick) // the meter runs
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		// A tight loop: Go preempts it only asynchronously, every 10 ms
		// or so, so the meter gets a turn late but does get one.
	}
	time.Sleep(5 * Tick)
	worst := m.Stop()
	if worst < 5*time.Millisecond {
		t.Errorf("worst delay %s with a busy loop holding the only P, want 5ms or more", worst)
	}
	if m.Stop() != worst {
		t.Error("a second Stop changed the result")
	}
}
