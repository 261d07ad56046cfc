package worker

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/wire"
)

// openPeers opens a client of each other Redis node of a Redlock race
// (cfg.RedisPeers), with the pool and timeouts of the worker's client of
// node 0, and opens every connection of each. close closes them.
func openPeers(ctx context.Context, cfg wire.Config) (peers []*redis.Client, close func(), err error) {
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
