package agent

import (
	"fmt"
	"testing"
	"time"
)

// TestGateRecovers: an address out of guesses gets one more every
// failEvery, each later wrong guess pushes the next one back, and it is
// told once per refusal spell.
func TestGateRecovers(t *testing.T) {
	g := newGate()
	now := time.Unix(1_700_000_000, 0)
	guess := func(at time.Time, wrong bool) bool {
		ok, _ := g.admit("10.0.0.1", at)
		if ok && wrong {
			g.guessed("10.0.0.1", at)
		}
		if ok {
			g.done("10.0.0.1")
		}
		return ok
	}
	for i := range failBurst {
		if !guess(now, true) {
			t.Fatalf("guess %d refused, want %d at once", i+1, failBurst)
		}
	}
	if ok, why := g.admit("10.0.0.1", now); ok || why == "" {
		t.Fatalf("admit after the burst = %v %q, want refused and said", ok, why)
	}
	if ok, why := g.admit("10.0.0.1", now); ok || why != "" {
		t.Fatalf("admit again = %v %q, want refused and not said again", ok, why)
	}
	later := now.Add(failEvery)
	if !guess(later, true) {
		t.Fatalf("refused %s later, want one more guess", failEvery)
	}
	if guess(later.Add(failEvery/2), false) {
		t.Fatal("let in half a period after a wrong guess")
	}
	if g.pending != 0 {
		t.Errorf("pending = %d after every exchange ended", g.pending)
	}
}

// TestGateForgets: the gate remembers at most maxTracked addresses, and
// forgets those with nothing under way and every guess back.
func TestGateForgets(t *testing.T) {
	g := newGate()
	now := time.Unix(1_700_000_000, 0)
	for i := range maxTracked {
		addr := fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255)
		if ok, _ := g.admit(addr, now); !ok {
			t.Fatalf("address %d refused", i)
		}
		if i == 0 {
			g.guessed(addr, now)
		}
		g.done(addr)
	}
	if ok, _ := g.admit("192.0.2.1", now); !ok {
		t.Fatal("a new address was refused though old ones could be forgotten")
	}
	if len(g.addrs) > maxTracked {
		t.Errorf("the gate remembers %d addresses, want at most %d", len(g.addrs), maxTracked)
	}
	if _, kept := g.addrs["10.0.0.0"]; !kept {
		t.Error("forgot an address that still owes a guess")
	}
}
