package hammerlock

import (
	"errors"
	"testing"
	"time"
)

// TestHandedLeaseIsNeverLost: a lease taken for a head that leaves before
// using it comes back from leave, to be released; one taken for a waiter
// that no longer heads the line is refused.
func TestHandedLeaseIsNeverLost(t *testing.T) {
	q := &line{}
	claim := &Claim{}
	far := time.Now().Add(time.Hour)
	head, second := q.join(claim, far), q.join(claim, far)
	if !q.hand(head, Lease{Token: "a"}) {
		t.Fatal("hand to the head: refused")
	}
	if q.hand(second, Lease{Token: "b"}) {
		t.Error("hand to a waiter behind the head: taken, want refused")
	}
	if unused, ok := head.leave(); !ok || unused.Token != "a" {
		t.Errorf("leave: %v %v, want the unused lease a back", unused, ok)
	}
	if q.hand(head, Lease{Token: "c"}) {
		t.Error("hand to a waiter that left: taken, want refused")
	}
	if q.next() != second {
		t.Error("next: want the new head")
	}
}

// TestLineExpiresWaitersInOrder: the line's one timer sends each waiter
// behind the head home at its own deadline, not before, whatever order
// they joined in; the head is left to its own deadline, and a waiter that
// left is not touched.
func TestLineExpiresWaitersInOrder(t *testing.T) {
	q := &line{}
	start := time.Now()
	head := q.join(nil, start)
	late := q.join(nil, start.Add(120*time.Millisecond))
	early := q.join(nil, start.Add(40*time.Millisecond))
	gone := q.join(nil, start.Add(20*time.Millisecond))
	gone.leave()
	for _, w := range []struct {
		p    *place
		name string
		at   time.Duration
	}{{early, "early", 40 * time.Millisecond}, {late, "late", 120 * time.Millisecond}} {
		<-w.p.turn
		if waited := time.Since(start); waited < w.at {
			t.Errorf("%s waiter sent home after %v, before its deadline %v", w.name, waited, w.at)
		}
		if !errors.Is(w.p.out, ErrTimeout) {
			t.Errorf("%s waiter sent home with %v, want ErrTimeout", w.name, w.p.out)
		}
	}
	if q.head != head || head.next != nil || !head.in {
		t.Error("the head was sent home, or the line still holds others")
	}
	select {
	case <-gone.turn:
		t.Error("a waiter that left was sent home")
	default:
	}
}

// TestLineTellsWhyItsTriesFailed: a waiter whose wait runs out while the
// head's tries fail with an error is sent home with that error, not with
// a timeout that would blame the lock.
func TestLineTellsWhyItsTriesFailed(t *testing.T) {
	q := &line{}
	down := errors.New("connection refused")
	q.join(nil, time.Now())
	q.tried(down)
	w := q.join(nil, time.Now().Add(10*time.Millisecond))
	<-w.turn
	if !errors.Is(w.out, down) {
		t.Errorf("sent home with %v, want the head's error %v", w.out, down)
	}
}
