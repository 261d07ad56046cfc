package stack

import (
	"context"
	"fmt"
)

// noStackFixes is the advice given when Auto finds no way to get servers.
const noStackFixes = "no Redis/PostgreSQL available: pass --redis-url and --pg-url " +
	"(or HAMMER_REDIS_URL/HAMMER_PG_URL), start a Docker engine, or install " +
	"redis-server and postgresql (apt-get install redis-server postgresql)"

// finders are the probes Auto uses to choose a provider; tests replace them.
type finders struct {
	// docker returns nil when a Docker engine answers.
	docker func(ctx context.Context) error
	// local returns nil when the local server binaries are installed.
	local func() error
}

// defaultFinders probes the real machine.
func defaultFinders() finders {
	return finders{
		docker: findDockerEngine,
		local: func() error {
			_, err := findLocalBins()
			return err
		},
	}
}

// resolve checks o and returns the concrete Kind to start (never Auto).
// Docker and Local ignore URLs (say, from HAMMER_REDIS_URL) with a log line;
// Auto and External need both URLs or neither. Several Redis nodes need a
// Local stack, or an External one with a URL for each.
func (f finders) resolve(ctx context.Context, o Options) (Kind, error) {
	kind, err := f.pick(ctx, o)
	if err != nil {
		return "", err
	}
	return kind, checkNodes(kind, o)
}

// pick is resolve's choice of a Kind, before the nodes are checked.
func (f finders) pick(ctx context.Context, o Options) (Kind, error) {
	kind, err := ParseKind(string(o.Kind))
	if err != nil {
		return "", err
	}
	hasRedis, hasPG := o.RedisURL != "", o.PGURL != ""
	switch {
	case kind == Docker || kind == Local:
		if hasRedis || hasPG {
			fmt.Fprintf(o.Log, "ignoring the Redis/PostgreSQL URLs: only an external stack uses them, this one is %s\n", kind)
		}
		return kind, nil
	case hasRedis != hasPG:
		return "", badConfigf("give both a Redis URL and a PostgreSQL URL, or neither (only the %s URL is set)", which(hasRedis))
	case kind == External && !hasRedis:
		return "", badConfigf("an external stack needs a Redis URL and a PostgreSQL URL")
	case hasRedis:
		return External, nil
	case o.RedisNodes > 1:
		fmt.Fprintf(o.Log, "auto: %d Redis nodes, using local binaries (a Docker stack runs one Redis)\n", o.RedisNodes)
		return Local, f.local()
	}
	return f.auto(ctx, o)
}

// checkNodes refuses a number of Redis nodes a stack of kind cannot have:
// fewer than one, several in Docker, or, on an External stack, not one URL
// per node.
func checkNodes(kind Kind, o Options) error {
	nodes := max(o.RedisNodes, 1)
	switch {
	case o.RedisNodes < 0:
		return badConfigf("want at least one Redis node, got %d", o.RedisNodes)
	case kind == Docker && nodes > 1:
		return badConfigf("a docker stack runs one Redis, not %d nodes: use --stack local or external", nodes)
	case kind == External && len(o.RedisPeers)+1 != nodes:
		return badConfigf("%d Redis URLs for %d Redis nodes: give one URL per node", len(o.RedisPeers)+1, nodes)
	}
	return nil
}

// auto chooses Docker, else Local, else reports every way to get servers.
func (f finders) auto(ctx context.Context, o Options) (Kind, error) {
	dockerErr := f.docker(ctx)
	if dockerErr == nil {
		fmt.Fprintln(o.Log, "auto: a Docker engine answers, using containers")
		return Docker, nil
	}
	localErr := f.local()
	if localErr == nil {
		fmt.Fprintf(o.Log, "auto: using local binaries (%v)\n", dockerErr)
		return Local, nil
	}
	return "", unavailablef("%s (docker: %v; local: %v)", noStackFixes, dockerErr, localErr)
}

// which names the URL that is set.
func which(redisSet bool) string {
	if redisSet {
		return "Redis"
	}
	return "PostgreSQL"
}
