package driver_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/worker"
	"github.com/hammer-load/hammer/scenarios"
)

// contenders are the contender kinds this test binary offers its workers
// besides the built-in strategies.
func contenders() map[string]worker.Connect {
	return map[string]worker.Connect{"canned": connectCanned}
}

// canned is a contender that answers every attempt with the outcome its
// settings name, without touching any server: it shows that a contender
// of another kind plugs into the driver through the worker's Kit.
type canned struct{ outcome history.Outcome }

func connectCanned(_ context.Context, s worker.Session) (worker.Contender, func(), error) {
	var cfg struct {
		Outcome history.Outcome `json:"outcome"`
	}
	if err := json.Unmarshal(s.Config, &cfg); err != nil {
		return nil, nil, err
	}
	return canned{outcome: cfg.Outcome}, func() {}, nil
}

func (canned) Warm(context.Context) error { return nil }

func (c canned) Attempt(_ context.Context, a *history.Attempt, _ *rand.Rand) {
	a.Invoke = time.Now().UnixNano()
	a.Outcome = c.outcome
	a.Complete = time.Now().UnixNano()
}

// TestPluggedContender races a contender of another kind than the built-in
// strategies: every record is its answer, and nothing was sold.
func TestPluggedContender(t *testing.T) {
	o := options(t, scenarios.UpdateOnly)
	o.Contender, o.ContenderConfig = "canned", json.RawMessage(`{"outcome":"sold_out"}`)
	res, err := driver.Race(context.Background(), o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	if got, want := len(res.Attempts), o.Procs*o.Goroutines; got != want {
		t.Fatalf("got %d attempts, want %d", got, want)
	}
	for _, a := range res.Attempts {
		if a.Outcome != history.SoldOut {
			t.Fatalf("attempt %s: outcome %s, want sold_out from the plugged contender", a.RequestID, a.Outcome)
		}
	}
	if len(res.Sales) != 0 || len(res.Run.Incomplete) != 0 {
		t.Errorf("sales %v, incomplete %v; want none", res.Sales, res.Run.Incomplete)
	}
}

// TestUnknownContenderKind: a kind the worker binary does not offer fails
// the race before anything was attempted.
func TestUnknownContenderKind(t *testing.T) {
	o := options(t, scenarios.UpdateOnly)
	o.Contender = "no-such-kind"
	_, err := driver.Race(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), `unknown contender kind "no-such-kind"`) {
		t.Fatalf("Race: %v; want the unknown contender kind named", err)
	}
}
