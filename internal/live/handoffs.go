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
	arrived  []lockHolder // since the last settle
	newest   int64        // the latest answer among them (Unix ns)
	pending  []lockHolder // sorted by acquired, not yet settled
	last     lockHolder   // the last holder settled
	haveLast bool
}

// lockHolder is what a handoff needs of a lock holder's record (all of
// one race), without pointers: the race's collector copies one per holder.
type lockHolder struct {
	invoke, acquired, releasing int64
	lost                        bool
}

// attempt is h as the record latency.HandoffGap reads.
func (h lockHolder) attempt() history.Attempt {
	return history.Attempt{Invoke: h.invoke, LockAcquired: h.acquired, LockReleasing: h.releasing, LockLost: h.lost}
}

// add keeps holder a; called from the race's collector.
func (p *pendingHolders) add(a history.Attempt) {
	h := lockHolder{invoke: a.Invoke, acquired: a.LockAcquired, releasing: a.LockReleasing, lost: a.LockLost}
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
		if p.haveLast && a.acquired < p.last.acquired {
			continue // too late to place: counted as a holder only
		}
		p.pending = append(p.pending, a)
	}
	slices.SortFunc(p.pending, func(a, b lockHolder) int { return cmp.Compare(a.acquired, b.acquired) })
	watermark := newest - int64(settleAfter)
	if final {
		watermark = math.MaxInt64
	}
	n := 0
	for n < len(p.pending) && p.pending[n].acquired < watermark {
		cur := p.pending[n]
		if p.haveLast {
			prev, next := p.last.attempt(), cur.attempt()
			if gap, ok := latency.HandoffGap(&prev, &next); ok {
				f(gap)
			}
		}
		p.last, p.haveLast = cur, true
		n++
	}
	p.pending = slices.Delete(p.pending, 0, n)
}
