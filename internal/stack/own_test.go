package stack

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestStartRedis: a Redis of a race's own answers, loses every key when
// restarted (lock-loss), and Close stops it and removes its directory.
func TestStartRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: skipped by -short (make test runs it)")
	}
	if FindRedisServer() == "" {
		requireLocalBins(t) // skips or fails as the other local tests do
	}
	ctx := context.Background()
	begin := time.Now()
	s, err := StartRedis(ctx, testLog{t})
	if err != nil {
		t.Fatalf("StartRedis: %v", err)
	}
	t.Logf("StartRedis took %s", time.Since(begin).Round(time.Millisecond))
	t.Cleanup(func() { _ = s.Close() })
	if s.Kind != Local || s.PGURL != "" || s.RedisPeers != nil {
		t.Errorf("kind %s, PGURL %q, peers %v: want a Local stack with a Redis only", s.Kind, s.PGURL, s.RedisPeers)
	}
	opt, err := redis.ParseURL(s.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if err := rdb.Set(ctx, "seatd:lock:sector:1", "token", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.RestartRedis(ctx); err != nil {
		t.Fatalf("RestartRedis: %v", err)
	}
	if n, err := rdb.Exists(ctx, "seatd:lock:sector:1").Result(); err != nil || n != 0 {
		t.Errorf("after the restart: exists %d, %v; want the key gone", n, err)
	}
	dir, pid := s.local.dir, s.local.redis.pid()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there after Close (%v)", dir, err)
	}
	if pids := procsIn(dir); len(pids) > 0 {
		t.Errorf("processes left in %s: %v (redis was pid %d)", dir, pids, pid)
	}
}

// TestTLSURLForAPlainRedis: a rediss:// URL for a Redis that speaks no TLS
// is the URL's mistake (ErrBadConfig), said in one line, not a server that
// did not answer.
func TestTLSURLForAPlainRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: skipped by -short (make test runs it)")
	}
	if FindRedisServer() == "" {
		requireLocalBins(t)
	}
	s, err := StartRedis(context.Background(), testLog{t})
	if err != nil {
		t.Fatalf("StartRedis: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	opts, err := redis.ParseURL(strings.Replace(s.RedisURL, "redis://", "rediss://", 1))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout) // as checkServers does
	defer cancel()
	err = checkRedisServer(ctx, "redis", opts)
	checkOneSentinel(t, err, ErrBadConfig, "")
	if want := "does not speak TLS: it answers PING in plain text, so its URL is redis://, not rediss://"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
}
