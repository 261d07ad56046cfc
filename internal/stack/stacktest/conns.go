package stacktest

import (
	"context"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// FreezableRedis connects to the Redis server at url, which the test
// owns (a Private stack's), and returns the client and the server's
// process id, from INFO server: tests freeze it with SIGSTOP to play a
// server that stops answering. The client is closed, and the server
// let run again (SIGCONT), when the test ends.
func FreezableRedis(t *testing.T, url string) (*redis.Client, int) {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	info, err := rdb.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
			return rdb, pid
		}
	}
	t.Fatal("INFO server names no process_id")
	return nil, 0
}

// PGConn is a connection to the shared stack's PostgreSQL, closed when
// the test ends, and the stack's PostgreSQL URL.
func PGConn(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	pgURL := Get(t).PGURL
	conn, err := pgx.Connect(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, pgURL
}

// SilentRedis is a Redis client whose every command waits, unanswered,
// until its context ends: its dial blocks until then and is never
// retried. Tests use it to hold a lock's head of line in its try for as
// long as they like, with no server at all. It is closed when the test
// ends.
func SilentRedis(t *testing.T) *redis.Client {
	rdb := redis.NewClient(&redis.Options{
		Addr: "127.0.0.1:1", MaxRetries: -1,
		Dialer: func(ctx context.Context, _, _ string) (net.Conn, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		DialTimeout: time.Hour,
	})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
