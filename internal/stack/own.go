package stack

import (
	"context"
	"fmt"
	"io"
	"os"
)

// FindRedisServer returns the redis-server binary StartRedis runs (PATH,
// /usr/bin, /usr/sbin), or "" when there is none.
func FindRedisServer() string { return findExecutable("redis-server", "/usr/bin", "/usr/sbin") }

// StartRedis starts one throw-away redis-server from the local binary, on a
// free loopback port, without persistence, with its data in a temporary
// directory: a Redis that hammer owns whole, for one race of a service
// whose keys have fixed names. Its directory is marked with hammer's
// process as a local stack's is, so that a later start removes it if
// hammer was killed (the server itself dies with hammer). The Stack it
// returns is of kind Local and has a RedisURL only (no PostgreSQL, no
// peers); RestartRedis and StartReplica work on it, and Close stops it
// and removes its directory. The error wraps ErrUnavailable.
func StartRedis(ctx context.Context, log io.Writer) (*Stack, error) {
	if log == nil {
		log = io.Discard
	}
	bin := FindRedisServer()
	if bin == "" {
		return nil, unavailablef("redis-server not found in PATH, /usr/bin or /usr/sbin (apt-get install redis-server)")
	}
	sweepStale(os.TempDir(), log) // the directories of killed hammers' races too
	l := &localServers{bins: localBins{redisServer: bin}, log: log}
	err := l.makeDir()
	if err == nil {
		l.redisPort, err = onFreePort(func(port int) error { return l.runRedis(ctx, port) })
	}
	if err != nil {
		if cerr := l.close(); cerr != nil {
			fmt.Fprintf(log, "cleaning up the failed redis-server: %v\n", cerr)
		}
		return nil, unavailablef("own redis-server: %w", err)
	}
	return &Stack{Kind: Local, RedisURL: redisURL(l.redisPort), stop: l.close, local: l}, nil
}
