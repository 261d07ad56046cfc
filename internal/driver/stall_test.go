package driver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

// stallFor is how long stallThirdSale stalls a holder.
const stallFor = 450 * time.Millisecond

// stallThirdSale stalls the third lock holder of the race for stallFor
// inside its critical section, the way a starved host or a long GC pause
// does: nothing is injected, no fault event is recorded.
func stallThirdSale(c *strategy.Contender, d strategy.Deps) {
	sell := c.Sell
	c.Sell = func(ctx context.Context, r seatdb.Request) (seatdb.Result, error) {
		if n, err := d.Redis.Incr(ctx, d.LockKey+":stall").Result(); err == nil && n == 3 {
			time.Sleep(stallFor)
		}
		return sell(ctx, r)
	}
}

// TestHostStall: a lock holder the host stalls past its TTL, with no fault
// injected, is not the strategy's fault. With the stall-proof TTL a safe
// cell gets without faults the stall expires nothing and the cell passes;
// with a TTL shorter than the stall the lock-only run is unknown, told as
// a host stall, never invalid.
func TestHostStall(t *testing.T) {
	tests := []struct {
		name       string
		ttl        time.Duration
		wantStatus verify.Status
	}{
		{"stall-proof TTL", scenarios.NoFault.LockTTL(150 * time.Millisecond), verify.Valid},
		{"TTL shorter than the stall", 150 * time.Millisecond, verify.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, scenarios.LockOnly)
			o.Plant, o.LockTTL = "host-stall", tt.ttl
			res, err := driver.Race(context.Background(), o)
			if err != nil {
				t.Fatalf("Race: %v", err)
			}
			v := check(res)
			if v.Status != tt.wantStatus {
				t.Fatalf("verdict %s, want %s", v.Summary(), tt.wantStatus)
			}
			if tt.wantStatus == verify.Unknown && !strings.Contains(undetermined(v), "host stall of") {
				t.Errorf("the reason does not say host stall: %s", undetermined(v))
			}
		})
	}
}
