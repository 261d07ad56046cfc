package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestBadInput: bad usage and races that cannot fit fail before anything
// starts: one line on stderr that points at the command's help, exit 2,
// and no results folder, schema or key left behind.
func TestBadInput(t *testing.T) {
	t.Setenv(envToken, "")
	nonEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(nonEmpty, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := filepath.Join(t.TempDir(), "refused.matrix")
	if err := os.WriteFile(refused, []byte("skip-locked failover safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ext := []string{"--stack", "external"}
	tests := []struct {
		name   string
		args   []string
		want   string
		server bool // race against the shared stack: the check needs the servers
	}{
		{name: "unknown mode", args: []string{"run", "--mode", "optimistic"}, want: `unknown mode "optimistic"`},
		{name: "missing mode", args: []string{"run"}, want: "--mode is required"},
		{name: "flag typo", args: []string{"run", "--mdoe", "none"}, want: "flag provided but not defined: -mdoe (see hammer run -h)"},
		{name: "zero seats", args: []string{"run", "--mode", "none", "--seats", "0"}, want: "--seats must be at least 1"},
		{name: "seats past the column type", args: []string{"run", "--mode", "none", "--seats", "2147483648"}, want: "at most 2147483647"},
		{name: "seat rows past the bound", args: []string{"run", "--mode", "skip-locked", "--seats", "10000001"}, want: "skip-locked makes one PostgreSQL row per seat before the race, and hammer makes at most 10000000"},
		{name: "zero procs", args: []string{"load", "--procs", "0"}, want: "--procs must be at least 1"},
		{name: "a negative control of one contender", args: []string{"load", "--procs", "1", "--goroutines", "1"}, want: "none is expected unsafe, but 1 contender cannot race anyone"},
		{name: "zero redis pool", args: []string{"run", "--mode", "lock-only", "--redis-pool", "0"}, want: "--redis-pool must be at least 1, got 0"},
		{name: "negative goroutines", args: []string{"run", "--mode", "none", "--goroutines", "-3"}, want: "--goroutines must be at least 1"},
		{name: "lock TTL under a millisecond", args: []string{"run", "--mode", "lock-only", "--lock-ttl", "1ns"}, want: "--lock-ttl must be at least 1ms"},
		{name: "zero timeout", args: []string{"run", "--mode", "none", "--timeout", "0s"}, want: "--timeout must be at least 1ms, got 0s"},
		{name: "infinite rate", args: []string{"run", "--mode", "none", "--rate", "Inf", "--duration", "1s"}, want: "a positive finite rate"},
		{name: "rate without duration", args: []string{"run", "--mode", "none", "--rate", "10"}, want: "--rate and --duration go together"},
		{name: "extend without a lock", args: []string{"run", "--mode", "update-only", "--extend"}, want: "--extend needs a mode with a lock"},
		{name: "extend with a stock counter", args: []string{"run", "--mode", "redis-gate", "--extend"}, want: "--extend needs a mode with a lock"},
		{name: "lock loss without redis state", args: []string{"run", "--mode", "skip-locked", "--fault", "lock-loss"},
			want: "the lock-loss fault takes away what Redis holds (a lock, a stock counter), and mode skip-locked keeps nothing there"},
		{name: "failover without redis state", args: []string{"run", "--mode", "update-only", "--fault", "failover"}, want: "mode update-only keeps nothing there"},
		{name: "gate cell without redis state", args: []string{"gate", "--matrix", refused}, want: "cell skip-locked/failover: the failover fault takes away what Redis holds"},
		{name: "too few contenders for the fault", args: []string{"run", "--mode", "lock-only", "--fault", "pause", "--seats", "1000000000", "--procs", "1", "--goroutines", "3"},
			want: "the pause fault strikes 2 chosen lock holders and needs at least 7 contenders"},
		{name: "more attempts than memory", args: []string{"run", "--mode", "none", "--attempts", "100000"}, want: "of memory"},
		{name: "attempts in the open model", args: []string{"run", "--mode", "none", "--rate", "10", "--duration", "2s", "--attempts", "5"},
			want: "--attempts goes with the closed model"},
		{name: "keep on the local stack", args: []string{"load", "--keep", "--stack", "local"}, want: "--keep keeps the run's schema and keys on servers that outlive hammer"},
		{name: "attempts that overflow", args: []string{"run", "--mode", "none", "--procs", "1", "--goroutines", "4", "--attempts", "4611686018427387905"},
			want: "hammer records at most 2147483647 per race"},
		{name: "more requests than memory", args: []string{"run", "--mode", "none", "--rate", "1e8", "--duration", "1s"}, want: "of memory"},
		{name: "unknown stack", args: []string{"load", "--stack", "kubernetes"}, want: "unknown stack kind"},
		{name: "redislock over nodes", args: []string{"run", "--mode", "lock-only", "--lock", "redislock", "--redis-nodes", "3"}, want: "--lock redislock works on one Redis node, not a Redlock over 3"},
		{name: "even redis nodes", args: []string{"run", "--mode", "lock-only", "--redis-nodes", "4"}, want: "--redis-nodes must be odd and at least 1"},
		{name: "zero redis nodes", args: []string{"gate", "--redis-nodes", "0"}, want: "survives no more failures than of one fewer), got 0"},
		{name: "fault longer than the timeout", args: []string{"run", "--mode", "lock-only", "--fault", "net-delay", "--lock-ttl", "1m"},
			want: "the net-delay fault may last 6m0s at a lock TTL of 1m0s, and a race that outlasts --timeout 5m0s ends unknown"},
		{name: "gate fault longer than the timeout", args: []string{"gate", "--lock-ttl", "30s"},
			want: "the pause fault may last 3m0s at a lock TTL of 30s, and a race that outlasts --timeout 1m0s ends unknown"},
		{name: "quorum fault on one node", args: []string{"run", "--mode", "lock-only", "--fault", "node-restart"},
			want: "the node-restart fault strikes a node of a Redlock holder's majority: it needs 3 or more Redis nodes, got 1 (set --redis-nodes)"},
		{name: "quorum fault without a lock", args: []string{"run", "--mode", "update-only", "--fault", "clock-jump", "--redis-nodes", "3"}, want: "mode update-only takes no lock"},
		{name: "fewer redis urls than nodes", args: append([]string{"run", "--mode", "lock-only", "--redis-nodes", "3", "--redis-url", "redis://127.0.0.1:1/0,redis://127.0.0.1:2/0", "--pg-url", "postgres://u@127.0.0.1:1/db"}, ext...),
			want: "--redis-url lists 2 Redis URLs for --redis-nodes 3"},
		{name: "redis nodes in docker", args: []string{"run", "--mode", "lock-only", "--redis-nodes", "3", "--stack", "docker"}, want: "a docker stack runs one Redis"},
		{name: "malformed redis url", args: append([]string{"run", "--mode", "none", "--redis-url", "http://nope", "--pg-url", "postgres://u@127.0.0.1:1/db"}, ext...), want: "--redis-url: malformed Redis URL"},
		{name: "malformed pg url", args: append([]string{"run", "--mode", "none", "--redis-url", "redis://127.0.0.1:1/0", "--pg-url", "postgres://u@[bad"}, ext...), want: "--pg-url: malformed PostgreSQL URL"},
		{name: "non-empty out", args: []string{"run", "--mode", "none", "--out", nonEmpty}, want: "already holds files"},
		{name: "out that cannot be made", args: []string{"run", "--mode", "none", "--out", "/proc/hammer-results"}, want: "--out /proc/hammer-results"},
		{name: "more connections than postgresql allows", args: []string{"run", "--mode", "none", "--procs", "500"}, want: "max_connections", server: true},
		{name: "agents without a token", args: []string{"run", "--mode", "none", "--agents", "2"}, want: "--agents needs a shared token in --token-file, $HAMMER_TOKEN or --token"},
		{name: "agents with a short token", args: []string{"run", "--mode", "none", "--agents", "2", "--token", "0123456789"}, want: "at least 16 characters"},
		{name: "agents with 4 emoji as a token", args: []string{"run", "--mode", "none", "--agents", "2", "--token", "🔨🔨🔨🔨"}, want: "at least 16 characters (hammer token makes one), got 4"},
		{name: "token and token file", args: []string{"run", "--mode", "none", "--agents", "2", "--token", "0123456789abcdef", "--token-file", "/dev/null"}, want: "--token and --token-file: give one"},
		{name: "token file missing", args: []string{"gate", "--agents", "2", "--token-file", "/nonexistent/token"}, want: "--token-file: open /nonexistent/token: no such file"},
		{name: "token file empty", args: []string{"load", "--agents", "2", "--token-file", "/dev/null"}, want: "--token-file: /dev/null: is a character device, not a regular file"},
		{name: "token file endless", args: []string{"agent", "--join", "127.0.0.1:7070", "--token-file", "/dev/zero"}, want: "--token-file: /dev/zero: is a character device, not a regular file"},
		{name: "token without agents", args: []string{"run", "--mode", "none", "--token", "0123456789abcdef"}, want: "--token goes with --agents"},
		{name: "agents and procs", args: []string{"load", "--agents", "2", "--procs", "3", "--token", "0123456789abcdef"}, want: "--agents 2 runs one worker on each agent: drop --procs"},
		{name: "agents elsewhere with a local stack", args: []string{"run", "--mode", "none", "--agents", "2", "--listen", "0.0.0.0:7070", "--stack", "local", "--token", "0123456789abcdef"},
			want: "the local stack's servers listen on this host's loopback: use --stack external"},
		{name: "agents elsewhere with urls on loopback", args: []string{"load", "--target", "../../examples/ticketd/target-compose.yaml", "--agents", "2", "--listen", "0.0.0.0:7070", "--token", "0123456789abcdef"},
			want: "lists urls: on 127.0.0.1, this host's loopback, which they cannot reach: list addresses the agents reach, or keep --listen on loopback"},
		{name: "listen without agents", args: []string{"gate", "--listen", "0.0.0.0:7070"}, want: "--listen goes with --agents"},
		{name: "agent without a coordinator", args: []string{"agent"}, want: "--join host:port is required"},
		{name: "agent without a token", args: []string{"agent", "--join", "127.0.0.1:7070"}, want: "a shared token from --token-file, $HAMMER_TOKEN or --token"},
		{name: "agent with a bad index", args: []string{"agent", "--join", "127.0.0.1:7070", "--index", "-2"}, want: `--index must be an index, 0 or more, got "-2"`},
		{name: "unknown command", args: []string{"race"}, want: `unknown command "race"`},
		{name: "verify without folder", args: []string{"verify"}, want: "want exactly one results folder"},
		{name: "verify missing folder", args: []string{"verify", filepath.Join(nonEmpty, "nope")}, want: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.server {
				args = append(args, stackArgs(t)...)
			}
			failsBeforeAnything(t, stacktest.Get(t), args, exitUsage, tt.want)
		})
	}
}

// TestTLSURLsForPlainServers: URLs that ask for TLS of servers without it
// are the URLs' mistake, told in one line before anything starts: a plain
// Redis otherwise looks silent (it waits for the end of the handshake it
// takes for a command).
func TestTLSURLsForPlainServers(t *testing.T) {
	t.Parallel()                // servers of its own
	own := stacktest.Private(t) // local servers: no TLS
	t.Run("rediss", func(t *testing.T) {
		args := []string{"run", "--mode", "update-only", "--stack", "external",
			"--redis-url", strings.Replace(own.RedisURL, "redis://", "rediss://", 1), "--pg-url", own.PGURL}
		failsBeforeAnything(t, own, args, exitUsage, "does not speak TLS: it answers PING in plain text, so its URL is redis://, not rediss://")
	})
	t.Run("sslmode=require", func(t *testing.T) {
		pgURL := strings.Replace(own.PGURL, "sslmode=disable", "sslmode=require", 1)
		if !strings.Contains(pgURL, "sslmode=require") {
			t.Fatalf("no sslmode=disable in %s to replace", own.PGURL)
		}
		args := []string{"run", "--mode", "update-only", "--stack", "external", "--redis-url", own.RedisURL, "--pg-url", pgURL}
		failsBeforeAnything(t, own, args, exitUsage, "does not offer TLS, which the URL's sslmode requires: use sslmode=disable or prefer")
	})
}

// TestServerLimits: a race the servers cannot hold — Redis maxclients,
// a PostgreSQL role that may not create schemas — fails before anything
// is created, naming the setting and what is needed.
func TestServerLimits(t *testing.T) {
	st := stacktest.Get(t)
	ctx := context.Background()
	t.Run("redis maxclients", func(t *testing.T) {
		// A Redis of the test's own: other test binaries may share st.
		own := stacktest.Private(t)
		if err := redisClient(t, own.RedisURL).ConfigSet(ctx, "maxclients", "60").Err(); err != nil {
			t.Fatal(err)
		}
		args := []string{"run", "--mode", "lock-only", "--procs", "2", "--redis-pool", "40",
			"--stack", "external", "--redis-url", own.RedisURL, "--pg-url", own.PGURL}
		failsBeforeAnything(t, own, args, exitUsage, "redis maxclients is 60")
	})
	t.Run("postgresql role without CREATE", func(t *testing.T) {
		conn, err := pgx.Connect(ctx, st.PGURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		role := fmt.Sprintf("hammer_test_nocreate_%d", os.Getpid())
		if _, err := conn.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
			t.Fatal(err)
		}
		// Dropped before the deferred Close: a t.Cleanup would run after it, on a closed connection.
		defer func() {
			if _, err := conn.Exec(context.Background(), "DROP ROLE "+role); err != nil {
				t.Errorf("drop the test's role: %v", err)
			}
		}()
		cfg, err := pgx.ParseConfig(st.PGURL)
		if err != nil {
			t.Fatal(err)
		}
		pgURL := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", role, cfg.Host, cfg.Port, cfg.Database)
		args := []string{"run", "--mode", "update-only", "--stack", "external", "--redis-url", st.RedisURL, "--pg-url", pgURL}
		failsBeforeAnything(t, st, args, exitUsage, "may not create schemas")
	})
}

// TestGateNoCellRan: a gate whose every cell the stack cannot run has not
// passed: it is refused, as run refuses such a race, for the stack the
// user chose.
func TestGateNoCellRan(t *testing.T) {
	matrix := filepath.Join(t.TempDir(), "failover.matrix")
	if err := os.WriteFile(matrix, []byte("lock-only failover unsafe\nfenced failover safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failsBeforeAnything(t, stacktest.Get(t), append([]string{"gate", "--matrix", matrix}, stackArgs(t)...), exitUsage,
		"no cell can run on this stack: lock-only/failover: the failover fault needs a stack hammer manages")
}

// failsBeforeAnything runs hammer with args (plus --quiet and a fresh
// --out unless given) and checks the exit code, one line on stderr holding
// want, and that no results folder was left behind, nor a schema or key on
// st.
func failsBeforeAnything(t *testing.T, st *stack.Stack, args []string, wantCode int, want string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results", "out")
	if args[0] != "verify" && args[0] != "race" && args[0] != "agent" {
		args = append(args, "--quiet")
		if !strings.Contains(strings.Join(args, " "), "--out") {
			args = append(args, "--out", out)
		}
	}
	before := leftovers(t, st)
	code, _, stderr := hammer(t, args...)
	if code != wantCode {
		t.Errorf("exit %d, want %d; stderr: %s", code, wantCode, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want one line containing %q", stderr, want)
	}
	if _, err := os.Stat(filepath.Dir(out)); err == nil {
		t.Errorf("a results folder was left at %s", filepath.Dir(out))
	}
	if left := appeared(before, leftovers(t, st)); len(left) > 0 {
		t.Errorf("hammer left %s", strings.Join(left, ", "))
	}
}

// leftovers names the hammer schemas and keys on st.
func leftovers(t *testing.T, st *stack.Stack) map[string]bool {
	t.Helper()
	return namesUnder(t, st, seatdb.SchemaPrefix, "hammer:")
}

// appeared lists, sorted, the names in after that were not in before:
// what a run left. A name gone since before is no leftover (a key of an
// earlier test can expire with its TTL meanwhile), and counting instead
// of naming would pass when one key expired as another was left.
func appeared(before, after map[string]bool) []string {
	var left []string
	for name := range after {
		if !before[name] {
			left = append(left, name)
		}
	}
	sort.Strings(left)
	return left
}

// namesUnder names the schemas ("schema x") and keys ("key x") on st
// whose names start with the given prefixes.
func namesUnder(t *testing.T, st *stack.Stack, schemaPrefix, keyPrefix string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, st.PGURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)", schemaPrefix)
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	keys, err := redisClient(t, st.RedisURL).Keys(ctx, keyPrefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range schemas {
		names["schema "+s] = true
	}
	for _, k := range keys {
		names["key "+k] = true
	}
	return names
}

// redisClient connects to the Redis at url for the test's duration.
func redisClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// TestURLsFromTheEnvironment: a URL taken from the environment that
// cannot work is refused naming the variable, not the flag that was not
// given.
func TestURLsFromTheEnvironment(t *testing.T) {
	tests := []struct{ redis, pg, want string }{
		{" ", " ", "$HAMMER_REDIS_URL holds only spaces: give a Redis URL"},
		{"redis://127.0.0.1:1/0", "\t", "$HAMMER_PG_URL holds only spaces: give a PostgreSQL URL"},
		{"redis://127.0.0.1:1/0,redis://127.0.0.1:2/0", "postgres://u@127.0.0.1:1/db", "$HAMMER_REDIS_URL lists 2 Redis URLs for --redis-nodes 1"},
		{"redis://127.0.0.1:1/0,", "postgres://u@127.0.0.1:1/db", "$HAMMER_REDIS_URL lists an empty URL"},
	}
	// The shared stack first: it may itself be named by these variables.
	st := stacktest.Get(t)
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Setenv(envRedisURL, tt.redis)
			t.Setenv(envPGURL, tt.pg)
			failsBeforeAnything(t, st, []string{"run", "--mode", "lock-only"}, exitUsage, tt.want)
		})
	}
}
