package driver

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/stack"
)

// openPeers opens a client of each other Redis node of a Redlock race
// (cfg.RedisPeers), with the pool and timeouts of the worker's client of
// node 0, and opens every connection of each. close closes them.
func openPeers(ctx context.Context, cfg workerConfig) (peers []*redis.Client, close func(), err error) {
	close = func() {
		for _, p := range peers {
			p.Close()
		}
	}
	for i, u := range cfg.RedisPeers {
		opt, err := redisOptionsAt(cfg, u)
		if err != nil {
			close()
			return nil, nil, fmt.Errorf("redis node %d: %w", i+1, err)
		}
		peers = append(peers, redis.NewClient(opt))
		if err := warmRedis(ctx, peers[i], cfg.RedisPool); err != nil {
			close()
			return nil, nil, fmt.Errorf("redis node %d: %w", i+1, err)
		}
	}
	return peers, close, nil
}

// cmdables returns clients as the commands they take.
func cmdables(clients []*redis.Client) []redis.Cmdable {
	out := make([]redis.Cmdable, len(clients))
	for i, c := range clients {
		out[i] = c
	}
	return out
}

// universal returns clients as redis.UniversalClient, the type lock
// libraries take (redsync's goredis.NewPool).
func universal(clients []*redis.Client) []redis.UniversalClient {
	out := make([]redis.UniversalClient, len(clients))
	for i, c := range clients {
		out[i] = c
	}
	return out
}

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
