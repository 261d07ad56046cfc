package redislock

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
// holding a connection. A release — announced on ReleasedChannel by any
// process, or made in this process — wakes the head at once, so the lock
// passes to the next holder within a round trip instead of at the next
// poll. A release nobody announced (an expired TTL, a deleted key, a
// dropped subscription) is still found by the head's polling with backoff:
// it is late, never missed.
type line struct {
	mu      sync.Mutex
	waiting []*place
	// failing is when the heads' tries began to fail with errors one
	// after the other (zero while they do not): a new head inherits it,
	// so that a line gives up on a dead Redis as soon as one waiter would.
	failing time.Time
}

// place is one waiter's spot in a line.
type place struct {
	q *line
	// turn is closed when the place heads the line.
	turn chan struct{}
	// kick holds a release seen while the place was, or would become, the head.
	kick chan struct{}
}

// join puts a waiter at the end of the line.
func (q *line) join() *place {
	p := &place{q: q, turn: make(chan struct{}), kick: make(chan struct{}, 1)}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waiting = append(q.waiting, p)
	if len(q.waiting) == 1 {
		close(p.turn)
	}
	return p
}

// leave takes p out of the line; if p was the head, the next waiter
// becomes the head and, if a release was pending for p, gets it.
func (p *place) leave() {
	q := p.q
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, w := range q.waiting {
		if w != p {
			continue
		}
		if i == 0 {
			q.waiting[0] = nil
			q.waiting = q.waiting[1:]
		} else {
			q.waiting = slices.Delete(q.waiting, i, i+1)
		}
		if i == 0 && len(q.waiting) > 0 {
			next := q.waiting[0]
			close(next.turn)
			select {
			case <-p.kick: // a release p did not use: the lock may be free
				next.kick <- struct{}{}
			default:
			}
		}
		return
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

// Wake tells this Locker's waiters for key that the lock was released
// elsewhere: the head of their line tries again at once. It is called for
// every message on ReleasedChannel(key); a Locker without handoff for key
// has no waiters to wake.
func (l *Locker) Wake(key string) {
	if q := l.lines[key]; q != nil {
		q.wake()
	}
}
