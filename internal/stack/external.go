package stack

import (
	"context"
	"fmt"
)

// startExternal validates the two URLs and checks that both servers answer.
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
	return &Stack{Kind: External, RedisURL: o.RedisURL, PGURL: o.PGURL}, nil
}
