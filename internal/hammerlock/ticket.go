package hammerlock

import (
	"context"
	"math/rand/v2"
	"time"
)

// Ticket is a place in a lock's line whose waiter does not wait in it:
// Join calls the waiter's function with the ticket once the place heads
// the line or is sent home, and the waiter goes on with Resume.
//
// A waiter in Retry holds a goroutine, parked on its stack, for its whole
// wait, and that goroutine must be woken to join the line at all. A flash
// sale's tens of thousands of waiters of one process join with Join in one
// loop at the go signal instead, each a stamp and a place, and only those
// whose turn comes (or who are sent home) get a goroutine
// (docs/design/2026-12-06-flash-sale.md).
type Ticket struct{ p *place }

// Join puts a waiter for key at the end of its line, with a wait that ends
// wait from now or with ctx, and returns at once; false when key has no
// line (the Locker has no handoff for it: see WithHandoff), and then
// nothing was done. turn is called with the waiter's ticket once its place
// heads the line or is sent home: later, or before Join returns (the first
// waiter heads the line at once; a dismissed line sends everyone home).
// turn runs with the line's lock held, so it must only hand the ticket on
// (to a goroutine it starts, or a queue whose lock is never held around a
// call of the Locker) for Resume to be called later: it must not block or
// call the Locker. claim is as for Retry.
func (l *Locker) Join(ctx context.Context, key string, wait time.Duration, claim *Claim, turn func(Ticket)) bool {
	q := l.lines[key]
	if q == nil {
		return false
	}
	now := q.now()
	q.join(ctx, claim, now, now.Add(wait), turn)
	return true
}

// Resume goes on with the waiter of t once Join called its turn function,
// as Retry does once a waiter's turn came: it returns why the waiter was
// sent home, if it was; else the head's tries (try, with backoff, until
// the lock is taken or handed over, or the wait's deadline passes). Either
// way the waiter then leaves the line. Call it once per ticket.
func (l *Locker) Resume(ctx context.Context, t Ticket, rng *rand.Rand, try func() (Lease, bool, error)) (Lease, error) {
	in := t.p
	if err := in.out; err != nil {
		l.leave(ctx, in)
		return Lease{}, err
	}
	lease, err := l.retry(ctx, in.deadline, rng, in, try)
	l.leave(ctx, in)
	return lease, err
}

// SentHome reports whether the waiter of t was sent home rather than
// given its turn: Resume will return why, without a try. Call it from
// Join's turn function, or after it.
func (t Ticket) SentHome() bool { return t.p.out != nil }

// await waits until p heads the line, and returns nil then; or the reason
// it was sent home: ErrTimeout at its deadline, a dismissal, or its
// context's error. It holds no timer and watches no context: the line
// does both for all its waiters (expire, watch).
func (p *place) await() error {
	<-p.turn
	return p.out
}

// arrive tells p's waiter that its turn came or that it was sent home
// (out set): it closes turn, or calls then (see Join). The caller holds
// p.q.mu.
func (p *place) arrive() {
	if p.then != nil {
		p.then(Ticket{p})
		return
	}
	close(p.turn)
}
