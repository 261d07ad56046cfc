package hammerlock

import "testing"

// TestHandedLeaseIsNeverLost: a lease taken for a head that leaves before
// using it comes back from leave, to be released; one taken for a waiter
// that no longer heads the line is refused.
func TestHandedLeaseIsNeverLost(t *testing.T) {
	q := &line{}
	claim := &Claim{}
	head, second := q.join(claim), q.join(claim)
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
