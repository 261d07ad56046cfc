package fault

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hammer-load/hammer/scenarios"
)

// netDelay adds latency to every response from Redis and PostgreSQL
// through the proxies: a third of the window's d per response, for 2d.
type netDelay struct{ proxies }

// Window adds a third of d as latency to every response, for twice d,
// then removes it. A response delayed by a third of d (a TTL, as the gate
// sizes it) slows a holder past its TTL; but every waiter's SET NX is
// slowed as much, and with the commands of the window's first moments
// piled up on the connections, the first waiter to take the expired lock
// may learn it only as the latency lifts. Twice d leaves that waiter,
// slowed in turn, still working when the next one takes its expired lock:
// lock-only then sells a seat twice in every run (20 of 20) instead of
// most (over d it failed to in 12 of 134 runs, see scenarios/locks.matrix).
func (p *netDelay) Window(ctx context.Context, d time.Duration) (string, error) {
	lasts := scenarios.NetDelay.Lasts(d)
	detail := fmt.Sprintf("every connection to Redis and PostgreSQL delayed by %s per response for %s", d/3, lasts)
	toxic := fmt.Sprintf(`{"name":"delay","type":"latency","stream":"downstream","toxicity":1,"attributes":{"latency":%d}}`,
		(d / 3).Milliseconds())
	for _, px := range p.both() {
		if _, err := px.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
			return detail, fmt.Errorf("add latency to %s: %w", px.Name, err)
		}
	}
	Sleep(ctx, lasts)
	for _, px := range p.both() {
		px.Toxics.ResetToxics(context.Background())
	}
	return detail, nil
}
