package live

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
)

// settleAfter is how long a lock holder waits in pendingHolders before
// the handoff to it is counted: records of one worker arrive together
// about once a second, so a holder that took the lock between two
// others can arrive after both. A holder later than this is counted as
// a holder but its handoff is not (report.md counts every one).
const settleAfter = 2 * time.Second

// pendingHolders finds the lock handoffs among a race's lock holders as
// their records arrive, in any order, with the definition the report
// uses (latency.HandoffGap), over a window: only the holders not yet
// settled are kept, so a long race holds little.
type pendingHolders struct {
	mu       sync.Mutex
	arrived  []history.Attempt // since the last settle
	newest   int64             // the latest answer among them (Unix ns)
	pending  []history.Attempt // sorted by LockAcquired, not yet settled
	last     history.Attempt   // the last holder settled
	haveLast bool
}

// add keeps holder a; called from the race's collector.
func (p *pendingHolders) add(a history.Attempt) {
	h := history.Attempt{Run: a.Run, Invoke: a.Invoke, LockAcquired: a.LockAcquired,
		LockReleasing: a.LockReleasing, LockLost: a.LockLost, Complete: a.Complete}
	p.mu.Lock()
	p.arrived = append(p.arrived, h)
	p.newest = max(p.newest, a.Complete)
	p.mu.Unlock()
}

// settle calls f with the gap of every handoff to a holder that took the
// lock more than settleAfter before the latest answer (every holder when
// final), in the order they took it, and forgets those holders.
func (p *pendingHolders) settle(final bool, f func(time.Duration)) {
	p.mu.Lock()
	arrived, newest := p.arrived, p.newest
	p.arrived = nil
	p.mu.Unlock()
	for _, a := range arrived {
		if p.haveLast && a.LockAcquired < p.last.LockAcquired {
			continue // too late to place: counted as a holder only
		}
		p.pending = append(p.pending, a)
	}
	slices.SortFunc(p.pending, func(a, b history.Attempt) int { return cmp.Compare(a.LockAcquired, b.LockAcquired) })
	watermark := newest - int64(settleAfter)
	if final {
		watermark = math.MaxInt64
	}
	n := 0
	for n < len(p.pending) && p.pending[n].LockAcquired < watermark {
		cur := p.pending[n]
		if p.haveLast {
			if gap, ok := latency.HandoffGap(&p.last, &cur); ok {
				f(gap)
			}
		}
		p.last, p.haveLast = cur, true
		n++
	}
	p.pending = slices.Delete(p.pending, 0, n)
}
