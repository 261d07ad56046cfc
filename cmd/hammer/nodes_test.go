package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/internal/redact"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/redis/go-redis/v9"
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
	f.redisURL = "redis://:pw-one@h:1/0,redis://:pw-two@h:2/0,redis://:pw-three@h:1"
	err := f.checkNodes(nil)
	if err == nil || !strings.Contains(err.Error(), "same Redis node twice (h:1, database 0)") || strings.Contains(err.Error(), "pw-") {
		t.Errorf("three URLs, the first and the last one node: %v", err)
	}
	f.redisURL = "redis://:pw-one@h:1/0,redis://:pw-two@h:2/0,redis://:pw-three@h:1/1"
	if err := f.checkNodes(nil); err != nil {
		t.Errorf("three distinct nodes (two databases of one server): %v", err)
	}
	f.redisURL = " redis://:pw-one@h:1/0, redis://:pw-two@h:2/0 "
	r := redact.URLs(withNodeURLs([]string{"--redis-url", f.redisURL})...)
	if got := r.String("node pw-one, node pw-two at h:1 and h:2"); got != "node xxxxx, node xxxxx at h:1 and h:2" {
		t.Errorf("masked %q: a node's password shows, or its host does not", got)
	}
	list := "redis://:secret@127.0.0.1:1,redis://:secret@127.0.0.1:2/0,redis://127.0.0.1:3"
	r = redact.URLs(withNodeURLs([]string{"--redis-url", list})...)
	if got := r.String("secret at 127.0.0.1:1"); got != "xxxxx at 127.0.0.1:1" {
		t.Errorf("masked %q, want the password alone masked", got)
	}
	r = redact.URLs(withNodeURLs([]string{"--redis-url=" + list})...)
	if got := r.String("secret at 127.0.0.1:1"); got != "xxxxx at 127.0.0.1:1" {
		t.Errorf("--redis-url=LIST: masked %q, want the password alone masked", got)
	}
	comma := "redis://:pa,ss-word@h:1"
	r = redact.URLs(withNodeURLs([]string{"--redis-url", comma})...)
	if got := r.String("pa,ss-word"); got != "xxxxx" {
		t.Errorf("a password with a comma masked as %q", got)
	}
}

// TestRedlockOnExternalNodes races a Redlock over three external Redis
// nodes given as one comma-separated --redis-url: clock-jump catches
// lock-only (exit 1) and leaves no key on any node; node-restart, which
// restarts a node, is refused before anything starts (exit 2).
func TestRedlockOnExternalNodes(t *testing.T) {
	st := stacktest.Redlock(t, 3)
	urls := strings.Join(append([]string{st.RedisURL}, st.RedisPeers[:2]...), ",")
	ext := []string{"--stack", "external", "--redis-nodes", "3", "--redis-url", urls, "--pg-url", st.PGURL}
	failsBeforeAnything(t, st, append([]string{"run", "--mode", "lock-only", "--fault", "node-restart"}, ext...), exitUsage,
		"the node-restart fault needs a stack hammer manages (--stack local), not external")
	nodes := strings.Split(urls, ",")
	before := make([]int, len(nodes))
	for i, u := range nodes {
		before[i] = hammerKeys(t, u)
	}
	dir := filepath.Join(t.TempDir(), "out")
	args := append([]string{"run", "--mode", "lock-only", "--fault", "clock-jump", "--procs", "2", "--goroutines", "50", "--seats", "20",
		"--quiet", "--out", dir}, ext...)
	if code, stdout, stderr := hammer(t, args...); code != exitFail || !strings.Contains(stdout, "lock-only/clock-jump+nodes=3") {
		t.Fatalf("exit %d, want %d; stdout: %s; stderr: %s", code, exitFail, stdout, stderr)
	}
	for i, u := range nodes {
		if after := hammerKeys(t, u); after != before[i] {
			t.Errorf("node %d: %d hammer keys before the run, %d after", i, before[i], after)
		}
	}
}

// hammerKeys counts the keys under hammer: on the Redis at rawURL.
func hammerKeys(t *testing.T, rawURL string) int {
	t.Helper()
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), "hammer:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}
