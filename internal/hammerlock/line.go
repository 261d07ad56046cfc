package hammerlock

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ReleasedChannel is the Pub/Sub channel on which a Locker with handoff
// announces that it released key. The message is a hint only: nobody
// trusts it for ownership, which SET NX PX alone decides.
func ReleasedChannel(key string) string { return key + ":released" }

// line is the waiters of one process for one lock key, in the order they
// came. Only its head tries the lock; the others wait for their turn
// without sending a command, holding a connection or a timer of their own.
// A holder of this process that releases the lock takes it for the head in
// the same round trip (a SET NX PX right behind the release, see Claim),
// up to maxRun times in a row; then, and for a holder with nobody waiting
// behind it, the release is announced on ReleasedChannel and wakes the
// heads of every process's line, who try at once. A release nobody
// announced (an expired TTL, a deleted key, a dropped subscription) is
// still found by the head's polling with backoff: it is late, never missed.
//
// The waiters are a linked list through their places, so that any of them
// leaves in constant time; those behind the head are also a heap by
// deadline, and one timer for the whole line sends home those whose wait
// is over (expire).
type line struct {
	// epoch is when the line was made, with its monotonic clock reading
	// (see now).
	epoch      time.Time
	mu         sync.Mutex
	head, tail *place
	due        deadlines
	// failing is when the heads' tries began to fail with errors one
	// after the other (zero while they do not), and lastErr the last such
	// error: a new head inherits both, so that a line gives up on a dead
	// Redis as soon as one waiter would, and a waiter whose wait ran out
	// while it did says why. trying is when the head's try now in flight
	// was sent (zero between tries).
	failing, trying time.Time
	lastErr         error
	// run counts the lock's passes from holder to head within this
	// process since it last came from elsewhere.
	run int
	// expiry fires at armed (zero: not armed), the earliest deadline of
	// the waiters behind the head.
	expiry *time.Timer
	armed  time.Time
	// dismissed, once set (Locker.Dismiss), sends every waiter home with
	// it, those in line and those to come.
	dismissed error
	// watches are the contexts of the waiters behind the head, by their
	// Done channel (see watch).
	watches map[<-chan struct{}]*ctxWatch
}

// maxRun bounds how many times in a row the lock passes inside one
// process: then it is released for anyone, so that the waiters of the
// other processes are not starved while this one has a line.
const maxRun = 8

// expirySlack is how late the line's timer may send a waiter home: the
// deadlines of waiters that joined within it are served by one firing.
const expirySlack = time.Millisecond

// ErrUnanswered is why a waiter behind the head of a line is sent home
// when its wait ran out while the head's try, sent before the waiter came,
// still had no answer from Redis: the waiter's own try would have hung as
// long. It wraps context.DeadlineExceeded: Redis did not answer in time,
// which says nothing of the lock.
var ErrUnanswered = fmt.Errorf("lock wait ran out with the head of the line's try to Redis unanswered: %w", context.DeadlineExceeded)

// errDismissed stands in for a dismissal's missing reason.
var errDismissed = errors.New("lock wait dismissed")

// place is one waiter's spot in a line. It is kept small: a line of a
// flash sale has tens of thousands of them.
type place struct {
	q          *line
	ctx        context.Context // the waiter's: the line sends it home when it ends
	prev, next *place
	in         bool // linked in q
	// slot is the place's index in q.due, -1 when it is not there (it
	// heads the line, or left it).
	slot             int
	joined, deadline time.Time
	// turn is closed when the place heads the line, or is sent home with
	// out set (before the close); a place of Join has then instead, which
	// is called at that moment (see arrive).
	turn chan struct{}
	then func(Ticket)
	out  error
	// kick holds a release seen while the place was the head; handed
	// holds the lease a releasing holder took for it with its claim. Both
	// are made when the place becomes the head.
	kick   chan struct{}
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

// now is the time by the monotonic clock alone: one read of the clock
// where time.Now makes two (wall and monotonic), as every contender of a
// flash sale's start does on its way into the line. Its wall reading is
// the epoch's plus the monotonic time since, which is all a waiter's
// arrival and deadline are used for: to compare and to wait.
func (q *line) now() time.Time {
	if q.epoch.IsZero() {
		return time.Now()
	}
	return q.epoch.Add(time.Since(q.epoch))
}

// join puts a waiter that came at now, whose wait ends at deadline or
// with ctx, at the end of the line: one that waits for its turn on the
// place (then nil), or one whose then is called instead (Locker.Join).
// After a dismissal the place it returns is sent home already.
func (q *line) join(ctx context.Context, claim *Claim, now, deadline time.Time, then func(Ticket)) *place {
	p := &place{q: q, ctx: ctx, then: then, claim: claim, slot: -1, joined: now, deadline: deadline}
	if then == nil {
		p.turn = make(chan struct{})
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.dismissed != nil:
		p.sendHome(q.dismissed)
	case q.head == nil:
		q.head, q.tail, p.in = p, p, true
		p.promote()
	default:
		p.prev, q.tail.next, q.tail, p.in = q.tail, p, p, true
		heap.Push(&q.due, p)
		q.watch(p)
		q.arm(q.due[0].deadline)
	}
	return p
}

// promote makes p, which now heads the line, ready to try: it can be
// kicked and handed the lock, and its turn has come.
func (p *place) promote() {
	p.kick, p.handed = make(chan struct{}, 1), make(chan Lease, 1)
	p.arrive()
}

// sendHome ends p's wait with err; p is not, or no longer, in line.
func (p *place) sendHome(err error) {
	p.out = err
	p.arrive()
}

// unlink takes p out of the list and the heap; the caller holds q.mu.
func (q *line) unlink(p *place) {
	if p.slot >= 0 {
		q.undue(p)
	}
	if p.prev != nil {
		p.prev.next = p.next
	} else {
		q.head = p.next
	}
	if p.next != nil {
		p.next.prev = p.prev
	} else {
		q.tail = p.prev
	}
	p.prev, p.next, p.in = nil, nil, false
}

// leave takes p out of the line; if p was the head, the next waiter
// becomes the head and, if a release was pending for p, gets it. A lease
// handed to p that p did not take is returned: the caller releases it.
func (p *place) leave() (unused Lease, ok bool) {
	q := p.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if p.in {
		wasHead := q.head == p
		q.unlink(p)
		if wasHead {
			q.trying = time.Time{}
		}
		if next := q.head; wasHead && next != nil {
			q.undue(next)
			next.promote()
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

// arm makes the line's timer fire by deadline; the caller holds q.mu.
func (q *line) arm(deadline time.Time) {
	if !q.armed.IsZero() && !deadline.Before(q.armed) {
		return
	}
	q.armed = deadline
	d := time.Until(deadline) + expirySlack
	if q.expiry == nil {
		q.expiry = time.AfterFunc(d, q.expire)
	} else {
		q.expiry.Reset(d)
	}
}

// expire sends home the waiters behind the head whose wait is over, with
// ErrTimeout, or with the error the line's tries failed with if they were
// failing, or ErrUnanswered, and arms the timer for the next deadline. The
// head keeps its own deadline as it tries.
func (q *line) expire() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.armed = time.Time{}
	now := time.Now()
	for len(q.due) > 0 && !q.due[0].deadline.After(now) {
		p := q.due[0]
		q.unlink(p)
		p.sendHome(q.why(p))
	}
	if len(q.due) > 0 {
		q.arm(q.due[0].deadline)
	}
}

// why is why p's wait ran out: the error the line's tries failed with;
// the head's try still unanswered, sent before p came; else the lock
// stayed taken. The caller holds q.mu.
func (q *line) why(p *place) error {
	switch {
	case q.lastErr != nil:
		return q.lastErr
	case !q.trying.IsZero() && q.trying.Before(p.joined):
		return ErrUnanswered
	}
	return ErrTimeout
}

// dismiss sends every waiter behind the head home with why, now and from
// here on, and wakes the head, which returns why at its next try.
func (q *line) dismiss(why error) {
	if why == nil {
		why = errDismissed
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dismissed != nil {
		return
	}
	q.dismissed = why
	if q.head == nil {
		return
	}
	for p := q.head.next; p != nil; {
		after := p.next
		q.unlink(p)
		p.sendHome(why)
		p = after
	}
	q.kickHead()
}

// next returns the head of the line if a releasing holder should take the
// lock for it, counting the pass; nil when nobody waits with a Claim, or
// after maxRun passes in a row (which starts a new run).
func (q *line) next() *place {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == nil || q.head.claim == nil || q.dismissed != nil {
		return nil
	}
	if q.run++; q.run > maxRun {
		q.run = 0
		return nil
	}
	return q.head
}

// hand gives p the lease a releasing holder took for it; false if p no
// longer heads the line (it gave up meanwhile) or holds a lease already,
// and then the caller must release the lease.
func (q *line) hand(p *place, lease Lease) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head != p {
		return false
	}
	select {
	case p.handed <- lease:
		q.failing, q.lastErr = time.Time{}, nil // Redis answered the pass
		return true
	default:
		return false
	}
}

// sending notes that the head sends a try, unless the line was
// dismissed: then it returns why, and the head must not try.
func (q *line) sending() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dismissed != nil {
		return q.dismissed
	}
	q.trying = time.Now()
	return nil
}

// tried notes how a head's try ended (err nil: it reached Redis) and
// returns since when the line's tries have failed with errors, zero when
// the last one did not.
func (q *line) tried(err error) time.Time {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.lastErr, q.trying = err, time.Time{}
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
	q.failing, q.trying, q.lastErr, q.run = time.Time{}, time.Time{}, nil, 0
}

// wake tells the head of the line that the lock was released.
func (q *line) wake() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.kickHead()
}

// kickHead wakes the head, if any; the caller holds q.mu.
func (q *line) kickHead() {
	if q.head == nil {
		return
	}
	select {
	case q.head.kick <- struct{}{}:
	default: // one pending wake-up is as good as several
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

// Dismiss sends this Locker's waiters for key home with why (a generic
// reason if nil): those in line at once, the head at its next try, and
// those that come later without trying, so that Retry returns why to
// each. It is for a wait that became pointless for everyone (the sector
// sold out). A Locker without handoff for key has no line to dismiss.
func (l *Locker) Dismiss(key string, why error) {
	if q := l.lines[key]; q != nil {
		q.dismiss(why)
	}
}

// Handoff reports whether this Locker's waiters for key wait in line (see
// WithHandoff).
func (l *Locker) Handoff(key string) bool { return l.lines[key] != nil }
