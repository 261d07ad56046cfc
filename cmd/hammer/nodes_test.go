package main

import (
	"slices"
	"testing"

	"github.com/hammer-load/hammer/internal/redact"
	"github.com/hammer-load/hammer/scenarios"
)

// TestRedisNodes: --redis-url lists one URL per node, --redis-nodes sets
// the nodes of every lock cell that does not say, and the stack starts as
// many nodes as the flag or a cell asks (an external one has its URLs).
func TestRedisNodes(t *testing.T) {
	f := gateDefaults()
	f.redisNodes, f.stackKind = 3, "local"
	f.redisURL = " redis://:pw-one@h:1/0, redis://:pw-two@h:2/0 "
	if got, want := f.redisURLs(), []string{"redis://:pw-one@h:1/0", "redis://:pw-two@h:2/0"}; !slices.Equal(got, want) {
		t.Errorf("redisURLs = %q, want %q", got, want)
	}
	cells := []scenarios.Scenario{
		{Mode: scenarios.LockOnly, Fault: scenarios.ClockJump},
		{Mode: scenarios.UpdateOnly},
		{Mode: scenarios.Fenced, Nodes: 5},
	}
	var names []string
	for _, c := range cells {
		names = append(names, f.withNodes(c.Named()).Name)
	}
	if want := []string{"lock-only/clock-jump+nodes=3", "update-only", "fenced+nodes=5"}; !slices.Equal(names, want) {
		t.Errorf("cells %q, want %q", names, want)
	}
	if got := f.stackNodes(cells); got != 5 {
		t.Errorf("a local stack for cells of up to 5 nodes starts %d", got)
	}
	f.stackKind, f.pgURL = "auto", "postgres://u@h/db"
	if got := f.stackNodes(cells); got != 2 {
		t.Errorf("an external stack with 2 URLs has %d nodes, want 2", got)
	}
	r := redact.URLs(withNodeURLs([]string{"--redis-url", f.redisURL})...)
	if got := r.String("node pw-one, node pw-two"); got != "node xxxxx, node xxxxx" {
		t.Errorf("masked %q: a node's password shows", got)
	}
}
