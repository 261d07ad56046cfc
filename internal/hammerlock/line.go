package hammerlock

import (
	"context"
	"slices"
	"sync"
	"time"
)

// ReleasedChannel is the Pub/Sub channel on which a Locker with handoff
// announces that it released key. The message is a hint only: nobody
// trusts it for ownership, which SET NX PX alone decides.
func ReleasedChannel(key string) string { return key + ":released" }

// line is the waiters of one process for one lock key. Only its head polls
// Redis; the others wait for their turn without sending a command or
// holding a connection. A holder of this process that releases the lock
// takes it for the head in the same round trip (a SET NX PX right behind
// the release, see Claim), up to maxRun times in a row; then, and for a
// holder with nobody waiting behind it, the release is announced on
// ReleasedChannel and wakes the heads of every process's line, who try at
// once. A release nobody announced (an expired TTL, a deleted key, a
// dropped subscription) is still found by the head's polling with backoff:
// it is late, never missed.
type line struct {
	mu      sync.Mutex
	waiting []*place
	// failing is when the heads' tries began to fail with errors one
	// after the other (zero while they do not): a new head inherits it,
	// so that a line gives up on a dead Redis as soon as one waiter would.
	failing time.Time
	// run counts the lock's passes from holder to head within this
	// process since it last came from elsewhere.
	run int
}

// maxRun bounds how many times in a row the lock passes inside one
// process: then it is released for anyone, so that the waiters of the
// other processes are not starved while this one has a line.
const maxRun = 8

// place is one waiter's spot in a line.
type place struct {
	q *line
	// turn is closed when the place heads the line.
	turn chan struct{}
	// kick holds a release seen while the place was, or would become, the head.
	kick chan struct{}
	// claim, if not nil, lets a releasing holder take the lock for this
	// waiter; handed then holds the lease it took.
	claim  *Claim
	handed chan Lease
}

// Claim is how a releasing holder of the same process takes the lock for
// the waiter heading the line, in the round trip of its own release: the
// waiter's own acquisition (SET NX PX with a new token, or the fenced
// script), sent for it. A waiter without a Claim is only woken.
type Claim struct {
	TTL time.Duration
	// FenceKey, if set, makes the acquisition the fenced one.
	FenceKey string
}

// join puts a waiter at the end of the line.
func (q *line) join(claim *Claim) *place {
	p := &place{q: q, turn: make(chan struct{}), kick: make(chan struct{}, 1), claim: claim, handed: make(chan Lease, 1)}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waiting = append(q.waiting, p)
	if len(q.waiting) == 1 {
		close(p.turn)
	}
	return p
}

// leave takes p out of the line; if p was the head, the next waiter
// becomes the head and, if a release was pending for p, gets it. A lease
// handed to p that p did not take is returned: the caller releases it.
func (p *place) leave() (unused Lease, ok bool) {
	q := p.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if i := slices.Index(q.waiting, p); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
		if i == 0 && len(q.waiting) > 0 {
			next := q.waiting[0]
			close(next.turn)
			select {
			case <-p.kick: // a release p did not use: the lock may be free
				next.kick <- struct{}{}
			default:
			}
		}
	}
	select {
	case unused, ok = <-p.handed:
	default:
	}
	return unused, ok
}

// next returns the head of the line if a releasing holder should take the
// lock for it, counting the pass; nil when nobody waits with a Claim, or
// after maxRun passes in a row (which starts a new run).
func (q *line) next() *place {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 || q.waiting[0].claim == nil {
		return nil
	}
	if q.run++; q.run > maxRun {
		q.run = 0
		return nil
	}
	return q.waiting[0]
}

// hand gives p the lease a releasing holder took for it; false if p no
// longer heads the line (it gave up meanwhile) or holds a lease already,
// and then the caller must release the lease.
func (q *line) hand(p *place, lease Lease) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 || q.waiting[0] != p {
		return false
	}
	select {
	case p.handed <- lease:
		q.failing = time.Time{} // Redis answered the pass
		return true
	default:
		return false
	}
}

// tried notes how a head's try ended (err nil: it reached Redis) and
// returns since when the line's tries have failed with errors, zero when
// the last one did not.
func (q *line) tried(err error) time.Time {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case err == nil:
		q.failing = time.Time{}
	case q.failing.IsZero():
		q.failing = time.Now()
	}
	return q.failing
}

// took notes that the head took the lock by its own try: it came from
// outside the line's run of passes, which starts anew.
func (q *line) took() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.failing, q.run = time.Time{}, 0
}

// wake tells the head of the line that the lock was released.
func (q *line) wake() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 {
		return
	}
	select {
	case q.waiting[0].kick <- struct{}{}:
	default: // one pending wake-up is as good as several
	}
}

// await waits until p heads the line. It returns ctx's error, or
// ErrTimeout at deadline.
func (p *place) await(ctx context.Context, deadline time.Time) error {
	select {
	case <-p.turn:
		return nil
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-p.turn:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return ErrTimeout
	}
}

// Waiting is how many of this Locker's waiters for key are in its line:
// each tried once, found the lock taken, and waits for a release, the
// lock handed to it, or its turn to poll. Zero for a key without handoff.
func (l *Locker) Waiting(key string) int {
	q := l.lines[key]
	if q == nil {
		return 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}

// Wake tells this Locker's waiters for key that the lock was released
// elsewhere: the head of their line tries again at once. It is called for
// every message on ReleasedChannel(key); a Locker without handoff for key
// has no waiters to wake.
func (l *Locker) Wake(key string) {
	if q := l.lines[key]; q != nil {
		q.wake()
	}
}
