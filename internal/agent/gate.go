package agent

import (
	"net"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits on strangers. Each failed token exchange is one guess at the
// token; an address gets failBurst of them at once and then one every
// failEvery, and at most perAddrHandshakes connections proving the token
// at a time, so that one address can neither guess quickly nor hold
// every place while an agent from elsewhere joins.
const (
	failBurst         = 5
	failEvery         = 12 * time.Second
	perAddrHandshakes = 4
	// maxHandshakes bounds the connections proving the token at once,
	// from every address together; more are closed at once.
	maxHandshakes = 64
	// maxTracked bounds the addresses the gate remembers.
	maxTracked = 4096
)

// gate decides which connections may try the token exchange. Accept's
// goroutine admits connections and ends their exchanges; each exchange's
// goroutine counts its wrong guess before it tells the peer, so that the
// peer's next connection finds the guess counted.
type gate struct {
	mu      sync.Mutex
	addrs   map[string]*addrState
	pending int  // exchanges under way, every address together
	full    bool // the refusal for too many at once was logged
}

// addrState is what the gate knows of one source address.
type addrState struct {
	fails   *rate.Limiter // one token per guess allowed
	pending int           // exchanges under way from this address
	told    bool          // a refusal was logged since it was last let in
}

func newGate() *gate { return &gate{addrs: map[string]*addrState{}} }

// host is the address part of a connection's remote address.
func host(a net.Addr) string {
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

// admit says whether a connection from addr may start an exchange now,
// and if not, why ("" when the refusal was said already for this address
// and need not be logged again).
func (g *gate) admit(addr string, now time.Time) (ok bool, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pending >= maxHandshakes {
		if g.full {
			return false, ""
		}
		g.full = true
		return false, "too many connections are proving the token"
	}
	g.full = false
	s := g.state(addr, now)
	if s == nil {
		return false, "too many addresses are proving the token"
	}
	why = ""
	switch tokens := s.fails.TokensAt(now); {
	case tokens < 1:
		wait := time.Duration((1 - tokens) * float64(failEvery))
		why = "too many wrong tokens from it; it may try again in " + wait.Round(time.Second).String()
	case s.pending >= perAddrHandshakes:
		why = "it has other connections proving the token"
	}
	if why != "" { // said once until the address is let in again
		if s.told {
			why = ""
		}
		s.told = true
		return false, why
	}
	s.told = false
	s.pending++
	g.pending++
	return true, ""
}

// done ends an exchange admitted from addr.
func (g *gate) done(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.addrs[addr]; s != nil {
		s.pending--
		g.pending--
	}
}

// guessed counts a wrong guess from addr, an address with an exchange
// under way; a guess beyond the budget pushes the next one later.
func (g *gate) guessed(addr string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.addrs[addr]; s != nil {
		s.fails.ReserveN(now, 1)
	}
}

// busy is how many exchanges are under way.
func (g *gate) busy() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pending
}

// state is addr's state, made when new; nil when the gate remembers as
// many addresses as it may and none can be forgotten (an address is
// forgotten once it has nothing under way and its guesses are back).
func (g *gate) state(addr string, now time.Time) *addrState {
	if s := g.addrs[addr]; s != nil {
		return s
	}
	if len(g.addrs) >= maxTracked {
		for a, s := range g.addrs {
			if s.pending == 0 && s.fails.TokensAt(now) >= failBurst {
				delete(g.addrs, a)
			}
		}
		if len(g.addrs) >= maxTracked {
			return nil
		}
	}
	s := &addrState{fails: rate.NewLimiter(rate.Every(failEvery), failBurst)}
	g.addrs[addr] = s
	return s
}
