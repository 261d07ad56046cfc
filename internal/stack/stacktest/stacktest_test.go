package stacktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/stack"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestGet(t *testing.T) {
	s := Get(t)
	if again := Get(t); again != s {
		t.Fatalf("second Get returned another stack")
	}
	ctx := context.Background()
	opts, err := redis.ParseURL(s.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	conn, err := pgx.Connect(ctx, s.PGURL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	t.Logf("%s stack, notes %q", s.Kind, s.Notes)
}

// fakeTB records Skipf and Fatalf instead of stopping the test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.failed = fmt.Sprintf(format, a...) }

func TestCheck(t *testing.T) {
	unavailable := fmt.Errorf("no servers: %w", stack.ErrUnavailable)
	badConfig := fmt.Errorf("one url: %w", stack.ErrBadConfig)
	tests := []struct {
		name     string
		err      error
		require  string
		wantSkip bool
		wantFail bool
	}{
		{name: "ok", err: nil},
		{name: "unavailable skips", err: unavailable, wantSkip: true},
		{name: "unavailable fails when required", err: unavailable, require: "1", wantFail: true},
		{name: "bad config fails", err: badConfig, wantFail: true},
		{name: "other error fails", err: errors.New("stacktest misuse"), wantFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvRequire, tt.require)
			f := &fakeTB{TB: t}
			var s *stack.Stack
			if tt.err == nil {
				s = &stack.Stack{}
			}
			got := check(f, s, tt.err)
			if (f.skipped != "") != tt.wantSkip || (f.failed != "") != tt.wantFail || got != s {
				t.Fatalf("check: skipped %q, failed %q, stack %p; want skip %v, fail %v, stack %p",
					f.skipped, f.failed, got, tt.wantSkip, tt.wantFail, s)
			}
		})
	}
}
