package live

import (
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/scenarios"
)

// BenchmarkFeedAttempt is what --live adds to the race's collector for
// each record: the Attempt hook of a lock-plus-update race (counters,
// the phases' histograms, a lock holder kept for the handoffs), with its
// ticker running and one browser subscribed.
func BenchmarkFeedAttempt(b *testing.B) {
	var hub *Hub
	m := NewMetrics(func() int { return hub.Clients() })
	hub = NewHub(DefaultBuffer, m.Dropped)
	hub.Subscribe()
	f := NewFeed(FeedOptions{Hub: hub, Metrics: m})
	h := f.Track(driver.Options{Scenario: scenarios.Scenario{Name: "lock-plus-update", Mode: scenarios.LockPlusUpdate},
		Procs: 1, Goroutines: 1, Attempts: b.N, Seats: b.N})
	goAt := time.Now().UnixNano()
	h.Go(goAt)
	a := holder("lock-plus-update", 0, 1, 2, history.Sold)
	b.ResetTimer()
	for i := range b.N {
		a.Invoke = goAt + int64(i)*300_000 // a holder every 0.3 ms, about as fast as the lock hands over
		a.LockAcquired, a.DBStart = a.Invoke+50_000, a.Invoke+50_000
		a.DBEnd, a.LockReleasing, a.LockReleased, a.Complete = a.Invoke+250_000, a.Invoke+250_000, a.Invoke+260_000, a.Invoke+260_000
		h.Attempt(a)
	}
	b.StopTimer()
	h.Done()
}
