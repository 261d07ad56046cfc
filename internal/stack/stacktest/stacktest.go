// Package stacktest gives integration tests of other packages one shared
// Redis + PostgreSQL stack per test binary.
//
// A package opts in with
//
//	func TestMain(m *testing.M) { os.Exit(stacktest.Main(m)) }
//
// and each test calls Get. The stack comes from HAMMER_REDIS_URL and
// HAMMER_PG_URL when both are set (HAMMER_REDIS_URL may list several
// Redis nodes, comma-separated), else from local binaries with Nodes
// independent Redis servers, else from stack.Auto (Docker). A test of a
// Redlock over n nodes calls Redlock instead of Get. When no stack can be had, Get skips the test, or fails it when
// HAMMER_REQUIRE_SERVICES=1 so that CI never skips integration tests
// silently. Tests share the servers, so each must isolate itself (own key
// prefix, own schema) as DESIGN.md asks.
package stacktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/stack"
)

// Environment variables read by Get.
const (
	// EnvRedisURL and EnvPGURL name external servers to use.
	EnvRedisURL = "HAMMER_REDIS_URL"
	EnvPGURL    = "HAMMER_PG_URL"
	// EnvRequire, set to "1", turns a missing stack into a test failure.
	EnvRequire = "HAMMER_REQUIRE_SERVICES"
)

// startTimeout bounds starting the stack, image pulls included.
const startTimeout = 5 * time.Minute

// Nodes is how many independent Redis servers the shared stack has when
// it is started from local binaries: enough for a Redlock over five.
const Nodes = 5

// shared is the one stack of this test binary. Package-level state is
// the point of this helper: a test binary is one process, Get starts the
// stack once for all its tests, and Main stops it after the last test.
var shared struct {
	mu      sync.Mutex
	inMain  bool // Main is running, so someone will stop the stack
	started bool // a start was attempted; stack and err hold its result
	stack   *stack.Stack
	err     error
}

// Main runs the package's tests and stops the shared stack afterwards. Use
// it as func TestMain(m *testing.M) { os.Exit(stacktest.Main(m)) }. The
// processes the tests start (hammer's workers are the test binary itself)
// skip the race detector's sleep at exit (GORACE atexit_sleep_ms, 1 s by
// default), which every race would otherwise wait out for each worker; a
// race the detector found still fails the process (exit status 66), and a
// GORACE that sets the sleep is kept.
func Main(m *testing.M) int {
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
	shared.mu.Lock()
	shared.inMain = true
	shared.mu.Unlock()

	code := m.Run()

	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.stack != nil {
		if err := shared.stack.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "stacktest: stop the shared stack: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
		shared.stack = nil
	}
	return code
}

// Get returns the shared stack of this test binary, starting it on first
// use. If no stack can be had it skips t, or fails t when
// HAMMER_REQUIRE_SERVICES=1; a bad configuration (say, only one of the two
// URLs set) always fails t. Under go test -short (make test-short) it
// skips t without starting anything: the integration tests are make
// test's.
func Get(t testing.TB) *stack.Stack {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Redis and PostgreSQL: skipped by -short (make test runs it)")
	}
	s, err := get()
	return check(t, s, err)
}

// check returns s, or skips or fails t for err as Get documents.
func check(t testing.TB, s *stack.Stack, err error) *stack.Stack {
	t.Helper()
	switch {
	case err == nil:
		return s
	case errors.Is(err, stack.ErrUnavailable) && os.Getenv(EnvRequire) != "1":
		t.Skipf("no Redis/PostgreSQL for this test (set %s=1 to fail instead): %v", EnvRequire, err)
	default:
		t.Fatalf("stacktest: %v", err)
	}
	return nil
}

// get starts the shared stack once and returns it or the start error.
func get() (*stack.Stack, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.inMain {
		return nil, errors.New("stacktest.Get needs the package's TestMain to call stacktest.Main")
	}
	if !shared.started {
		shared.started = true
		shared.stack, shared.err = start()
	}
	return shared.stack, shared.err
}

// start starts the stack the environment asks for. Progress lines and
// server logs stay out of the test output.
func start() (*stack.Stack, error) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	urls := strings.Split(os.Getenv(EnvRedisURL), ",")
	o := stack.Options{Kind: stack.Auto, RedisURL: urls[0], RedisPeers: urls[1:], RedisNodes: len(urls), PGURL: os.Getenv(EnvPGURL)}
	if o.RedisURL == "" && o.PGURL == "" {
		st, err := stack.Start(ctx, stack.Options{Kind: stack.Local, RedisNodes: Nodes})
		if err == nil || !errors.Is(err, stack.ErrUnavailable) {
			return st, err
		}
		o.RedisPeers, o.RedisNodes = nil, 1 // no local binaries: Docker, with one Redis
	}
	return stack.Start(ctx, o)
}

// Redlock returns the shared stack of this test binary for a test of a
// Redlock over n nodes: RedisURL and the first n-1 of RedisPeers. It skips
// or fails t as Get does when the stack has fewer nodes (an external one
// given fewer URLs, a Docker one).
func Redlock(t testing.TB, n int) *stack.Stack {
	t.Helper()
	st := Get(t)
	if have := len(st.RedisPeers) + 1; have < n {
		err := fmt.Errorf("%w: the test needs %d Redis nodes, the stack has %d (list %d URLs in %s, or install redis-server)",
			stack.ErrUnavailable, n, have, n, EnvRedisURL)
		check(t, nil, err)
	}
	return st
}

// Private starts a local stack of the test's own, stopped when the test
// ends, for a test that kills or reconfigures its servers (the shared
// stack may be shared with other test binaries too). It skips or fails t
// the way Get does when no stack can be had.
func Private(t testing.TB) *stack.Stack {
	t.Helper()
	Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	st, err := stack.Start(ctx, stack.Options{Kind: stack.Local})
	if err != nil {
		t.Fatalf("stacktest: private stack: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("stacktest: stop the private stack: %v", err)
		}
	})
	return st
}
