package driver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/scenarios"
)

// TestSeatAndStockModes races the modes that keep seat rows or a stock
// counter: each sells exactly the seats, reads back what its inventory
// says is left (the seat rows for skip-locked, the counter for redis-gate,
// nothing for counter-only, whose stock PostgreSQL does not count) and
// leaves no key behind, the stock counter included.
func TestSeatAndStockModes(t *testing.T) {
	tests := []struct {
		mode          scenarios.Mode
		wantNoCounter bool
	}{
		{scenarios.SkipLocked, false},
		{scenarios.RedisGate, false},
		{scenarios.CounterOnly, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			o := options(t, tt.mode)
			res, err := driver.Race(context.Background(), o)
			if err != nil {
				t.Fatalf("Race: %v", err)
			}
			if v := check(res); v.Sold != o.Seats || v.Oversold != 0 || len(v.Violations) > 0 {
				t.Errorf("verdict %s; want exactly %d sold, no violation", v.Summary(), o.Seats)
			}
			switch {
			case tt.wantNoCounter && (res.Sector != nil || !res.Run.NoCounter):
				t.Errorf("sector %+v, no counter %v; want none read back", res.Sector, res.Run.NoCounter)
			case !tt.wantNoCounter && (res.Sector == nil || res.Sector.Available != 0 || res.Sector.Capacity != o.Seats):
				t.Errorf("sector %+v; want 0 of %d left", res.Sector, o.Seats)
			}
			opt, err := redis.ParseURL(o.RedisURL)
			if err != nil {
				t.Fatal(err)
			}
			rdb := redis.NewClient(opt)
			defer rdb.Close()
			if keys, err := rdb.Keys(context.Background(), "hammer:"+o.RunID+":*").Result(); err != nil || len(keys) > 0 {
				t.Errorf("keys left after the race: %v (%v)", keys, err)
			}
		})
	}
}

// TestStockLossOnExternalRedis runs the lock-loss cells of the stock-counter
// modes as on a Redis hammer did not start, where the fault only sets the
// run's own counter back to full stock: the counter alone oversells, the
// backstop holds.
func TestStockLossOnExternalRedis(t *testing.T) {
	for _, name := range []string{"counter-only/lock-loss", "redis-gate/lock-loss"} {
		t.Run(name, func(t *testing.T) {
			cell := gateCell(t, name)
			o := gateOptions(t, cell)
			o.Managed = nil
			res := raceExpect(t, o, cell.Expected)
			if len(res.Faults) != 1 || !strings.Contains(res.Faults[0].Detail, "hammer set it back to its full stock of 20") {
				t.Errorf("faults %+v; want one that set the counter back", res.Faults)
			}
		})
	}
}
