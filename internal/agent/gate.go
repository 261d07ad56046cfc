package agent

import (
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits on strangers. Every failed handshake (a wrong guess at the
// token, or a connection that never finished the exchange) costs its
// source one try: a source gets failBurst at once and then one every
// failEvery, and every source together allFailBurst and then one every
// allFailEvery, so that many addresses guess no faster than one. A source
// is an IPv4 address or an IPv6 /64, which one host commonly holds
// whole. A source may hold perSourceHandshakes connections proving the
// token at a time, so that one source cannot hold every place while an
// agent from elsewhere joins.
const (
	failBurst           = 5
	failEvery           = 12 * time.Second
	allFailBurst        = 20
	allFailEvery        = time.Second
	perSourceHandshakes = 4
	// maxHandshakes bounds the connections proving the token at once,
	// from every source together; more are closed at once.
	maxHandshakes = 64
	// maxTracked bounds the sources the gate remembers.
	maxTracked = 4096
)

// gate decides which connections may try the token exchange. Accept's
// goroutine admits connections and ends their exchanges; each exchange's
// goroutine counts its failure before it tells the peer, so that the
// peer's next connection finds it counted.
type gate struct {
	mu      sync.Mutex
	sources map[string]*sourceState
	all     *rate.Limiter // failures from every source together
	pending int           // exchanges under way, every source together
	told    bool          // a refusal of everyone was logged since someone was let in
}

// sourceState is what the gate knows of one source.
type sourceState struct {
	fails *rate.Limiter // one token per failure allowed
	// pending counts the exchanges under way from this source whose
	// failure is not counted yet; settled, those whose failure is (in
	// fails), not yet done.
	pending, settled int
	told             bool // a refusal was logged since it was last let in
}

func newGate() *gate {
	return &gate{sources: map[string]*sourceState{}, all: rate.NewLimiter(rate.Every(allFailEvery), allFailBurst)}
}

// source is the source a connection's remote address belongs to: its IPv4
// address, or its IPv6 /64.
func source(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.Prefix(64)
	return p.String()
}

// admit says whether a connection from src may start an exchange now,
// and if not, why ("" when a refusal was said already and need not be
// logged again).
func (g *gate) admit(src string, now time.Time) (ok bool, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.pending >= maxHandshakes:
		return false, sayOnce(&g.told, "too many connections are proving the token")
	case g.all.TokensAt(now) < 1:
		return false, sayOnce(&g.told, "too many failed handshakes from everywhere; every source waits")
	}
	s := g.source(src, now)
	if s == nil {
		return false, sayOnce(&g.told, "too many sources are proving the token")
	}
	g.told = false
	// Tries under way count as spent until they end.
	switch tokens := s.fails.TokensAt(now) - float64(s.pending); {
	case tokens < 1:
		wait := time.Duration((1 - tokens) * float64(failEvery))
		return false, sayOnce(&s.told, "too many failed handshakes from it; it may try again in "+wait.Round(time.Second).String())
	case s.pending >= perSourceHandshakes:
		return false, sayOnce(&s.told, "it has other connections proving the token")
	}
	s.told = false
	s.pending++
	g.pending++
	return true, ""
}

// sayOnce returns why the first time since *told was cleared, "" after.
func sayOnce(told *bool, why string) string {
	if *told {
		return ""
	}
	*told = true
	return why
}

// done ends an exchange admitted from src.
func (g *gate) done(src string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.sources[src]; s != nil {
		if s.settled > 0 {
			s.settled-- // the exchanges of one source are alike: any settled one will do
		} else {
			s.pending--
		}
		g.pending--
	}
}

// failed counts a failed handshake from src, a source with an exchange
// under way; a failure beyond the budget pushes the next try later. The
// exchange no longer counts as a try under way: its failure is counted,
// and the peer, told next, may try again before Accept's goroutine has
// seen the exchange end (counted twice, its try was refused).
func (g *gate) failed(src string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.sources[src]; s != nil {
		s.fails.ReserveN(now, 1)
		g.all.ReserveN(now, 1)
		if s.pending > 0 {
			s.pending--
			s.settled++
		}
	}
}

// busy is how many exchanges are under way.
func (g *gate) busy() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pending
}

// source is src's state, made when new; nil when the gate remembers as
// many sources as it may and none can be forgotten (a source is forgotten
// once it has nothing under way and its tries are all back).
func (g *gate) source(src string, now time.Time) *sourceState {
	if s := g.sources[src]; s != nil {
		return s
	}
	if len(g.sources) >= maxTracked {
		for a, s := range g.sources {
			if s.pending == 0 && s.settled == 0 && s.fails.TokensAt(now) >= failBurst {
				delete(g.sources, a)
			}
		}
		if len(g.sources) >= maxTracked {
			return nil
		}
	}
	s := &sourceState{fails: rate.NewLimiter(rate.Every(failEvery), failBurst)}
	g.sources[src] = s
	return s
}
