package driver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/scenarios"
)

// TestRedlockNodeRestart races hammer's lock over five Redis nodes at the
// gate's sizes while a node of a holder's majority restarts without
// persistence: lock-only is caught (a second holder won a majority while
// the first still worked), lock-plus-update stays safe behind its
// conditional UPDATE. The fault says which nodes held the key, and the
// race leaves no key on any node.
func TestRedlockNodeRestart(t *testing.T) {
	for _, cell := range []scenarios.Scenario{
		{Mode: scenarios.LockOnly, Fault: scenarios.NodeRestart, Nodes: 5, Expected: scenarios.Unsafe},
		{Mode: scenarios.LockPlusUpdate, Fault: scenarios.NodeRestart, Nodes: 5, Expected: scenarios.Safe},
	} {
		cell = cell.Named()
		t.Run(cell.Name, func(t *testing.T) { raceRedlock(t, cell) })
	}
}

// TestRedsyncNodeRestart races redsync (--lock redsync) over the same
// five nodes instead of hammer's lock: the same timeline catches it.
func TestRedsyncNodeRestart(t *testing.T) {
	cell := scenarios.Scenario{Mode: scenarios.LockOnly, Fault: scenarios.NodeRestart, Nodes: 5, Lock: scenarios.Redsync, Expected: scenarios.Unsafe}.Named()
	raceRedlock(t, cell)
}

// raceRedlock races cell over its Redis nodes and checks its expectation, the fault's story and that no key
// is left on any node.
func raceRedlock(t *testing.T, cell scenarios.Scenario) {
	t.Helper()
	st := stacktest.Redlock(t, cell.Nodes)
	o := gateOptions(t, cell)
	if o.Managed == nil {
		t.Skip("node-restart restarts a Redis node: it needs the local stack")
	}
	o.RedisPeers = st.RedisPeers[:cell.Nodes-1]
	res := raceExpect(t, o, cell.Expected)
	if len(res.Faults) != 1 || !strings.Contains(res.Faults[0].Detail, "restarted without persistence") ||
		!strings.Contains(res.Faults[0].Detail, "another contender took the lock on a majority") {
		t.Errorf("faults %+v; want one node restart and a new holder on a majority", res.Faults)
	}
	if res.Run.RedisNodes != cell.Nodes {
		t.Errorf("run records %d Redis nodes, want %d", res.Run.RedisNodes, cell.Nodes)
	}
	for i, u := range append([]string{o.RedisURL}, o.RedisPeers...) {
		opt, err := redis.ParseURL(u)
		if err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(opt)
		if keys, err := rdb.Keys(context.Background(), "hammer:"+o.RunID+":*").Result(); err != nil || len(keys) > 0 {
			t.Errorf("node %d: keys left after the race: %v (%v)", i, keys, err)
		}
		rdb.Close()
	}
}
