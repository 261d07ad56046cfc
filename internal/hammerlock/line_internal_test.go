package hammerlock

import (
	"context"
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
	head, second := q.join(context.Background(), claim, time.Now(), far, nil), q.join(context.Background(), claim, time.Now(), far, nil)
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
	head := q.join(context.Background(), nil, time.Now(), start, nil)
	late := q.join(context.Background(), nil, time.Now(), start.Add(120*time.Millisecond), nil)
	early := q.join(context.Background(), nil, time.Now(), start.Add(40*time.Millisecond), nil)
	gone := q.join(context.Background(), nil, time.Now(), start.Add(20*time.Millisecond), nil)
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
	q.join(context.Background(), nil, time.Now(), time.Now(), nil)
	q.tried(down)
	w := q.join(context.Background(), nil, time.Now(), time.Now().Add(10*time.Millisecond), nil)
	<-w.turn
	if !errors.Is(w.out, down) {
		t.Errorf("sent home with %v, want the head's error %v", w.out, down)
	}
}

// TestLineExpiresManyByDeadline: waiters that join with deadlines in any
// order are each sent home once its own deadline has passed, none before.
func TestLineExpiresManyByDeadline(t *testing.T) {
	q := &line{}
	start := time.Now()
	q.join(context.Background(), nil, time.Now(), start, nil) // the head
	const n = 40
	type waiter struct {
		p  *place
		at time.Duration
	}
	ws := make([]waiter, n)
	for i := range ws {
		at := time.Duration(10+(i*7919)%50) * time.Millisecond // 10–59 ms, shuffled
		ws[i] = waiter{q.join(context.Background(), nil, time.Now(), start.Add(at), nil), at}
	}
	for i := n - 1; i >= 0; i -= 5 { // some leave before their deadline
		ws[i].p.leave()
	}
	for i, w := range ws {
		if i%5 == 4 { // left
			continue
		}
		select {
		case <-w.p.turn:
		case <-time.After(5 * time.Second):
			t.Fatalf("waiter %d (deadline %v) not sent home after 5s", i, w.at)
		}
		if waited := time.Since(start); waited < w.at {
			t.Errorf("waiter %d sent home after %v, before its deadline %v", i, waited, w.at)
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.due) != 0 || q.head.next != nil {
		t.Errorf("%d waiters still due, want none", len(q.due))
	}
}

// TestLineTellsAnUnansweredTry: a waiter whose wait runs out while the
// head's try, sent before it came, has no answer yet is sent home with
// ErrUnanswered (a deadline of the server, not of the lock); one that came
// before the try was sent, with ErrTimeout.
func TestLineTellsAnUnansweredTry(t *testing.T) {
	q := &line{}
	q.join(context.Background(), nil, time.Now(), time.Now(), nil)
	before := q.join(context.Background(), nil, time.Now(), time.Now().Add(10*time.Millisecond), nil)
	q.sending()
	after := q.join(context.Background(), nil, time.Now(), time.Now().Add(10*time.Millisecond), nil)
	<-before.turn
	<-after.turn
	if !errors.Is(before.out, ErrTimeout) {
		t.Errorf("the waiter that came before the try: %v, want ErrTimeout", before.out)
	}
	if !errors.Is(after.out, ErrUnanswered) || !errors.Is(after.out, context.DeadlineExceeded) {
		t.Errorf("the waiter that came after the try: %v, want ErrUnanswered", after.out)
	}
}

// TestDismissWithoutReason: a dismissal without a reason still sends the
// line home with one.
func TestDismissWithoutReason(t *testing.T) {
	q := &line{}
	q.join(context.Background(), nil, time.Now(), time.Now().Add(time.Hour), nil)
	w := q.join(context.Background(), nil, time.Now(), time.Now().Add(time.Hour), nil)
	q.dismiss(nil)
	<-w.turn
	if w.out == nil {
		t.Fatal("sent home without a reason: await would take it for its turn")
	}
	if late := q.join(context.Background(), nil, time.Now(), time.Now().Add(time.Hour), nil); late.out == nil {
		t.Error("a waiter after the dismissal joined the line")
	}
}

// TestLineSendsHomeWaitersWhoseContextEnded: waiters behind the head wait
// on their turn alone; the line watches their contexts, once each, sends
// home those whose context ended with its error, leaves the others be, and
// stops watching a context once none of its waiters is left.
func TestLineSendsHomeWaitersWhoseContextEnded(t *testing.T) {
	q := &line{}
	far := time.Now().Add(time.Hour)
	a, cancelA := context.WithCancel(context.Background())
	b, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	head := q.join(a, nil, time.Now(), far, nil)
	a1, b1, a2 := q.join(a, nil, time.Now(), far, nil), q.join(b, nil, time.Now(), far, nil), q.join(a, nil, time.Now(), far, nil)
	if len(q.watches) != 2 || q.watches[a.Done()].n != 2 || q.watches[b.Done()].n != 1 {
		t.Fatalf("watches %d, want 2: one for a's two waiters behind the head, one for b's", len(q.watches))
	}
	cancelA()
	for _, p := range []*place{a1, a2} {
		if err := awaitWithin(t, p); !errors.Is(err, context.Canceled) {
			t.Errorf("a waiter of a cancelled context: %v, want context.Canceled", err)
		}
	}
	q.mu.Lock()
	if len(q.watches) != 1 || q.watches[b.Done()].n != 1 || q.head != head || head.next != b1 || b1.next != nil {
		t.Errorf("after a ended: %d watches, line head %p next %p; want b's watch alone, and the head then b's waiter", len(q.watches), q.head, head.next)
	}
	q.mu.Unlock()
	head.leave()
	if err := awaitWithin(t, b1); err != nil {
		t.Errorf("b's waiter, now the head: %v, want its turn", err)
	}
	if len(q.watches) != 0 {
		t.Errorf("%d watches once nobody waits behind the head, want none", len(q.watches))
	}
}

// awaitWithin is p.await(), failing the test if it has not returned in
// a few seconds.
func awaitWithin(t *testing.T, p *place) error {
	t.Helper()
	out := make(chan error, 1)
	go func() { out <- p.await() }()
	select {
	case err := <-out:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("await did not return within 5s")
		return nil
	}
}
