package fault

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// netDelay adds latency to every response from Redis and PostgreSQL for a
// window, through the proxies.
type netDelay struct{ proxies }

// Window adds a third of the window as latency to every response, then
// removes it.
func (p *netDelay) Window(ctx context.Context, d time.Duration) (string, error) {
	detail := fmt.Sprintf("every connection to Redis and PostgreSQL delayed by %s per response for %s", d/3, d)
	toxic := fmt.Sprintf(`{"name":"delay","type":"latency","stream":"downstream","toxicity":1,"attributes":{"latency":%d}}`,
		(d / 3).Milliseconds())
	for _, px := range p.both() {
		if _, err := px.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
			return detail, fmt.Errorf("add latency to %s: %w", px.Name, err)
		}
	}
	Sleep(ctx, d)
	for _, px := range p.both() {
		px.Toxics.ResetToxics(context.Background())
	}
	return detail, nil
}
