package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestWrongCredentials: a wrong Redis or PostgreSQL password, a Redis
// user whose ACL forbids what a race does, a PostgreSQL role that may not
// connect or a database that does not exist are the user's configuration:
// one line naming the server, exit 2, before anything starts, never the
// password. Before, WRONGPASS read as "did not answer PING", exit 3.
func TestWrongCredentials(t *testing.T) {
	own := stacktest.Private(t) // its servers are reconfigured
	ctx := context.Background()
	const redisPW, pgPW = "redis-Secret-42", "pg-Secret-42"
	if err := redisClient(t, own.RedisURL).ConfigSet(ctx, "requirepass", redisPW).Err(); err != nil {
		t.Fatal(err)
	}
	redisURL := withUser(t, own.RedisURL, "", redisPW)
	admin := redisClient(t, redisURL)
	if err := admin.Do(ctx, "ACL", "SETUSER", "elsewhere", "on", ">"+redisPW, "~other:*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Do(ctx, "ACL", "SETUSER", "deaf", "on", ">"+redisPW, "~*", "resetchannels", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	// Users that may run all but one command a race sends, that the rights
	// probe did not try before.
	forbidden := []string{"evalsha", "get", "incr", "decr", "pexpire", "exists", "scan", "subscribe"}
	for _, cmd := range forbidden {
		if err := admin.Do(ctx, "ACL", "SETUSER", "no"+cmd, "on", ">"+redisPW, "~*", "&*", "+@all", "-"+cmd).Err(); err != nil {
			t.Fatal(err)
		}
	}
	pgURL := requirePasswords(t, own.PGURL, "racer", pgPW)
	checked := &stack.Stack{RedisURL: redisURL, PGURL: own.PGURL} // where failsBeforeAnything looks for leftovers
	tests := []struct {
		name            string
		redisURL, pgURL string
		want            string
	}{
		{name: "redis without a password", redisURL: own.RedisURL, pgURL: pgURL, want: "NOAUTH"},
		{name: "redis wrong password", redisURL: withUser(t, own.RedisURL, "", "wrong-pw-1"), pgURL: pgURL, want: "WRONGPASS"},
		{name: "redis user without rights on hammer's keys", redisURL: withUser(t, own.RedisURL, "elsewhere", redisPW), pgURL: pgURL, want: "NOPERM"},
		{name: "redis user without rights on hammer's channels", redisURL: withUser(t, own.RedisURL, "deaf", redisPW), pgURL: pgURL, want: "NOPERM"},
		{name: "postgresql wrong password", redisURL: redisURL, pgURL: withUser(t, pgURL, "racer", "wrong-pw-2"), want: "(user racer, database hammer) refused hammer: wrong password"},
		{name: "postgresql database that does not exist", redisURL: redisURL, pgURL: strings.Replace(pgURL, "/hammer?", "/hammer_nowhere?", 1), want: "no such database"},
		{name: "postgresql role that may not connect", redisURL: redisURL, pgURL: withUser(t, pgURL, "outsider", pgPW), want: "lacks a privilege"},
	}
	for _, cmd := range forbidden {
		tests = append(tests, struct {
			name            string
			redisURL, pgURL string
			want            string
		}{name: "redis user without " + cmd, redisURL: withUser(t, own.RedisURL, "no"+cmd, redisPW), pgURL: pgURL, want: "NOPERM"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"run", "--mode", "lock-plus-update", "--stack", "external", "--redis-url", tt.redisURL, "--pg-url", tt.pgURL}
			failsBeforeAnything(t, checked, args, exitUsage, tt.want)
			_, _, stderr := hammer(t, append(args, "--quiet")...)
			if !strings.Contains(stderr, "refused hammer") || !strings.HasSuffix(stderr, "(see hammer run -h)\n") {
				t.Errorf("stderr = %q, want it to say the server refused hammer, in the shape of a usage error", stderr)
			}
			for _, pw := range []string{redisPW, pgPW, "wrong-pw-1", "wrong-pw-2"} {
				if strings.Contains(stderr, pw) {
					t.Errorf("stderr shows a password: %q", stderr)
				}
			}
		})
	}
}

// TestRedisReplicaURL: a Redis URL that points at a read-only replica is
// the user's mistake, said as such (exit 2), not "did not answer PING"
// (exit 3) as before.
func TestRedisReplicaURL(t *testing.T) {
	own := stacktest.Private(t) // its Redis becomes a replica
	ctx := context.Background()
	// A replica of a primary that is not there stays read-only.
	if err := redisClient(t, own.RedisURL).Do(ctx, "REPLICAOF", "127.0.0.1", "1").Err(); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--mode", "lock-plus-update", "--stack", "external", "--redis-url", own.RedisURL, "--pg-url", own.PGURL}
	failsBeforeAnything(t, &stack.Stack{RedisURL: own.RedisURL, PGURL: own.PGURL}, args, exitUsage, "read-only replica; give the URL of its primary")
}

// TestRedisDatabaseOutOfRange: a Redis URL whose database number the
// server does not have is the user's mistake (exit 2), not a server that
// failed (exit 3, as it was).
func TestRedisDatabaseOutOfRange(t *testing.T) {
	st := stacktest.Get(t)
	u, err := url.Parse(st.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/99"
	args := []string{"run", "--mode", "lock-plus-update", "--stack", "external", "--redis-url", u.String(), "--pg-url", st.PGURL}
	failsBeforeAnything(t, st, args, exitUsage, "database number is not one the server has")
}

// withUser is rawURL with the given user and password.
func withUser(t *testing.T, rawURL, user, password string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}

// requirePasswords makes the PostgreSQL at superURL (which it leaves
// trusted) ask every other role for its password over TCP, creates role
// user with password, and a role outsider that may not connect to the
// database. It returns the URL of user.
func requirePasswords(t *testing.T, superURL, user, password string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, superURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	cfg := conn.Config()
	var hba string
	if err := conn.QueryRow(ctx, "SHOW hba_file").Scan(&hba); err != nil {
		t.Fatal(err)
	}
	rules := []string{
		"local all all trust",
		fmt.Sprintf("host all %s 127.0.0.1/32 trust", cfg.User),
		"host all all 127.0.0.1/32 scram-sha-256",
		"host all all ::1/128 scram-sha-256",
	}
	for _, sql := range []string{
		fmt.Sprintf("COPY (SELECT unnest(ARRAY['%s'])) TO '%s'", strings.Join(rules, "','"), hba),
		"SELECT pg_reload_conf()",
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", user, password),
		fmt.Sprintf("GRANT CREATE ON DATABASE %s TO %s", cfg.Database, user),
		fmt.Sprintf("CREATE ROLE outsider LOGIN PASSWORD '%s'", password),
		fmt.Sprintf("REVOKE CONNECT ON DATABASE %s FROM PUBLIC", cfg.Database),
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", cfg.Database, user),
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return withUser(t, superURL, user, password)
}
