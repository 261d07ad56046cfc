package fault

import (
	"context"
	"fmt"
	"time"
)

// partition cuts every connection to Redis and PostgreSQL, and refuses new
// ones, for a window, through the proxies.
type partition struct{ proxies }

// Window stops both proxies (closing every connection) and starts them
// again on the same ports after d.
func (p *partition) Window(ctx context.Context, d time.Duration) (string, error) {
	detail := fmt.Sprintf("every connection to Redis and PostgreSQL cut, and new ones refused, for %s", d)
	for _, px := range p.both() {
		px.Stop()
	}
	Sleep(ctx, d)
	for _, px := range p.both() {
		if err := px.Start(); err != nil {
			return detail, fmt.Errorf("heal %s proxy: %w", px.Name, err)
		}
	}
	return detail, nil
}
