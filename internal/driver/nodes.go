package driver

import (
	"github.com/hammer-load/hammer/internal/stack"
)

// nodes is how many Redis nodes race o's lock: Scenario.Nodes for a mode
// with a lock, else one.
func nodes(o Options) int {
	if !o.Scenario.Mode.UsesLock() {
		return 1
	}
	return max(o.Scenario.Nodes, 1)
}

// peersOn returns the other Redis nodes of st that race o's lock, nodes 1
// to nodes(o)-1; nil for a lock on one Redis.
func peersOn(st *stack.Stack, o Options) []string {
	n := nodes(o) - 1
	if n <= 0 || n > len(st.RedisPeers) {
		return nil
	}
	return st.RedisPeers[:n]
}
