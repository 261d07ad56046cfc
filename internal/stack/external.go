package stack

import (
	"context"
	"fmt"
)

// startExternal validates the URLs and checks that every server answers.
// It starts nothing, so the Stack's Close does nothing.
func startExternal(ctx context.Context, o Options) (*Stack, error) {
	ropts, err := redisOptions(o.RedisURL)
	if err != nil {
		return nil, err
	}
	pcfg, err := pgConfig(o.PGURL)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Log, "checking external redis at %s and postgresql at %s\n", ropts.Addr, pgAddr(pcfg))
	if err := checkServers(ctx, ropts, pcfg); err != nil {
		return nil, err
	}
	for i, u := range o.RedisPeers {
		popts, err := redisOptions(u)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(o.Log, "checking external redis node %d at %s\n", i+1, popts.Addr)
		pctx, cancel := context.WithTimeout(ctx, pingTimeout)
		err = checkRedisServer(pctx, fmt.Sprintf("redis node %d", i+1), popts)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	return &Stack{Kind: External, RedisURL: o.RedisURL, RedisPeers: o.RedisPeers, PGURL: o.PGURL}, nil
}
