package agent

import (
	"fmt"
	"net"
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
			g.failed("10.0.0.1", at)
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

// TestGateAllSources: failures from many sources together are limited
// too, and the sources under way count against a source's tries.
func TestGateAllSources(t *testing.T) {
	g := newGate()
	now := time.Unix(1_700_000_000, 0)
	for i := range allFailBurst {
		src := fmt.Sprintf("10.1.0.%d", i)
		if ok, _ := g.admit(src, now); !ok {
			t.Fatalf("source %d refused before the budget of every source was spent", i)
		}
		g.failed(src, now)
		g.done(src)
	}
	if ok, why := g.admit("10.2.0.1", now); ok || why == "" {
		t.Fatalf("a fresh source after %d failures everywhere: admit = %v %q, want refused and said", allFailBurst, ok, why)
	}
	if ok, _ := g.admit("10.2.0.1", now.Add(allFailEvery)); !ok {
		t.Fatalf("refused %s later, want one more try", allFailEvery)
	}
	g.done("10.2.0.1")
	h := newGate()
	for i := range failBurst {
		if ok, _ := h.admit("10.3.0.1", now); !ok && i < perSourceHandshakes {
			t.Fatalf("try %d under way refused", i+1)
		}
	}
	if h.pending != perSourceHandshakes {
		t.Errorf("%d tries under way from one source, want %d", h.pending, perSourceHandshakes)
	}
}

// TestSource: a source is an IPv4 address, or an IPv6 /64.
func TestSource(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:4000":              "192.0.2.7",
		"[::ffff:192.0.2.7]:4000":     "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:4000": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:4000": "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:4000":      "2001:db8:1:3::/64",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := source(a); got != want {
			t.Errorf("source(%s) = %s, want %s", addr, got, want)
		}
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
			g.failed(addr, now)
		}
		g.done(addr)
	}
	if ok, _ := g.admit("192.0.2.1", now); !ok {
		t.Fatal("a new address was refused though old ones could be forgotten")
	}
	if len(g.sources) > maxTracked {
		t.Errorf("the gate remembers %d addresses, want at most %d", len(g.sources), maxTracked)
	}
	if _, kept := g.sources["10.0.0.0"]; !kept {
		t.Error("forgot an address that still owes a guess")
	}
}

// TestGateCountsAFailureOnce: a failed exchange whose failure is counted
// no longer holds its source's budget as a try under way, though Accept's
// goroutine has not seen it end yet: the peer, refused, may connect again
// at once, and its first failBurst tries all get an exchange. Counted
// twice, the fifth was closed unanswered on a loaded host.
func TestGateCountsAFailureOnce(t *testing.T) {
	g := newGate()
	now := time.Now()
	const src = "192.0.2.1"
	for i := range failBurst {
		if ok, why := g.admit(src, now); !ok {
			t.Fatalf("try %d of %d refused: %s", i+1, failBurst, why)
		}
		g.failed(src, now) // the peer is told next; done comes later
	}
	if ok, _ := g.admit(src, now); ok {
		t.Error("a try past the burst was admitted")
	}
	for range failBurst {
		g.done(src)
	}
	if n := g.busy(); n != 0 {
		t.Errorf("%d exchanges still under way once every one is done", n)
	}
}
