package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/hammer-load/hammer/internal/childproc"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/fixtures"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/scenarios"
)

// Sizes of a redis-benchmark run: its default 50 clients, enough requests
// to last about a second on a small machine.
const (
	redisBenchClients  = 50
	redisBenchRequests = 30000
)

// redisRPS is what redis-benchmark measured for the lock's two commands.
type redisRPS struct {
	set, release Value
}

// redisBenchmark measures, with redis-benchmark, the lock's commands on one
// key: SET key token NX PX ttl (taken after the first call, as it is for
// every waiter) and the owner-checked release script by EVALSHA (a token
// that is not the holder's, as for a late release).
func (b *Bench) redisBenchmark(ctx context.Context) (redisRPS, error) {
	_, prefix := b.names("redis-benchmark")
	key := prefix + "lock"
	defer hammerlock.DeleteAll(context.WithoutCancel(ctx), b.stack.RedisURL, prefix)
	rdb, err := b.redisClient(1)
	if err != nil {
		return redisRPS{}, err
	}
	defer rdb.Close()
	sha, err := rdb.ScriptLoad(ctx, fixtures.ReleaseScript()).Result()
	if err != nil {
		return redisRPS{}, fmt.Errorf("redis-benchmark: load the release script: %w", err)
	}
	ttl := strconv.FormatInt(scenarios.StallProofTTL.Milliseconds(), 10)
	set, err := b.redisBench(ctx, "SET", key, "holder-token", "NX", "PX", ttl)
	if err != nil {
		return redisRPS{}, err
	}
	release, err := b.redisBench(ctx, "EVALSHA", sha, "1", key, "waiter-token")
	if err != nil {
		return redisRPS{}, err
	}
	return redisRPS{set: set, release: release}, nil
}

// redisBench runs redis-benchmark on one command and returns its rps.
func (b *Bench) redisBench(ctx context.Context, command ...string) (Value, error) {
	u, err := url.Parse(b.stack.RedisURL)
	if err != nil {
		return NA(), fmt.Errorf("redis url: %w", err)
	}
	args := append([]string{"-h", u.Hostname(), "-p", u.Port(), "-c", strconv.Itoa(redisBenchClients),
		"-n", strconv.Itoa(redisBenchRequests), "--csv"}, command...)
	cmd := exec.CommandContext(ctx, b.tools.redisBenchmark, args...)
	cmd.SysProcAttr = childproc.Attr(true, syscall.SIGKILL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return NA(), fmt.Errorf("redis-benchmark %s: %w: %s", command[0], err, lastLine(stderr.String()))
	}
	rps, err := parseRedisBenchCSV(stdout.String())
	if err != nil {
		return NA(), fmt.Errorf("redis-benchmark %s: %w", command[0], err)
	}
	return Known(rps), nil
}

// parseRedisBenchCSV reads the rps of the one test in redis-benchmark's
// --csv output ("test","rps",… then one row per test).
func parseRedisBenchCSV(out string) (float64, error) {
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		return 0, fmt.Errorf("csv: %w", err)
	}
	if len(rows) != 2 || len(rows[0]) < 2 || rows[0][1] != "rps" || len(rows[1]) < 2 {
		return 0, fmt.Errorf("want a header with rps and one row, got %q", out)
	}
	return strconv.ParseFloat(rows[1][1], 64)
}

// lockCommands is how many lock commands (SET, and the release script by
// EVALSHA or EVAL) Redis has served so far, from INFO commandstats.
func lockCommands(ctx context.Context, rdb *redis.Client) (int64, error) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, fmt.Errorf("redis info commandstats: %w", err)
	}
	calls := ParseCommandStats(info)
	return calls["set"] + calls["evalsha"] + calls["eval"], nil
}
