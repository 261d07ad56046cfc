// Package stack provides the Redis and PostgreSQL servers a hammer run races
// against: servers the user already runs (External), containers started with
// testcontainers (Docker), or throw-away redis-server and postgres processes
// started from the local binaries (Local). Auto picks the first that works.
//
// Start returns a running Stack; Close stops and removes whatever Start
// started. Errors from Start wrap ErrBadConfig (the request cannot work as
// given) or ErrUnavailable (no servers could be had) and read as one line.
package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Kind names where the servers of a Stack come from.
type Kind string

// The kinds of stack.
const (
	// Auto uses External when both URLs are given, else Docker when a Docker
	// engine answers, else Local when the binaries are installed.
	Auto Kind = "auto"
	// External uses servers that already run, given by URL; hammer starts
	// and stops nothing.
	External Kind = "external"
	// Docker starts redis:7 and postgres:16 containers with testcontainers.
	Docker Kind = "docker"
	// Local starts redis-server and postgres from the installed binaries on
	// free loopback ports, with all data in a temporary directory.
	Local Kind = "local"
)

// Sentinel errors. Every error returned by Start wraps exactly one of
// ErrBadConfig and ErrUnavailable.
var (
	// ErrBadConfig reports a request that cannot work as given: a malformed
	// URL, an unknown kind, only one of the two URLs.
	ErrBadConfig = errors.New("bad stack configuration")
	// ErrUnavailable reports that no servers could be had: they do not
	// answer, or there is no way to start them here.
	ErrUnavailable = errors.New("redis/postgresql unavailable")
	// ErrUnsupported reports an operation the stack's kind cannot do, such
	// as restarting a server hammer did not start.
	ErrUnsupported = errors.New("not supported by this kind of stack")
)

// ParseKind returns the Kind named by s ("auto", "external", "docker" or
// "local", case-insensitive). The empty string means Auto.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	switch k {
	case "":
		return Auto, nil
	case Auto, External, Docker, Local:
		return k, nil
	}
	return "", badConfigf("unknown stack kind %q (want auto, external, docker or local)", s)
}

// Options says which stack to start.
type Options struct {
	// Kind selects the provider; the zero value means Auto.
	Kind Kind
	// RedisURL and PGURL name the servers of an External stack; Auto
	// chooses External when both are set. Give both or neither.
	RedisURL string
	PGURL    string
	// RedisNodes is how many independent Redis servers to have, for a
	// Redlock over several nodes: a Local stack starts them all; an
	// External one takes RedisURL and RedisPeers, which must add up to
	// it. 0 and 1 mean one; Docker starts only one.
	RedisNodes int
	// RedisPeers are the Redis servers of an External stack besides
	// RedisURL: nodes 1 to RedisNodes-1.
	RedisPeers []string
	// Log receives one-line progress messages; nil discards them.
	Log io.Writer
}

// Stack is a running Redis + PostgreSQL pair.
type Stack struct {
	// Kind is the provider that supplied the servers (never Auto).
	Kind Kind
	// RedisURL is the Redis to use, e.g. redis://127.0.0.1:41234/0: the
	// only one, or node 0 of several.
	RedisURL string
	// RedisPeers are the other independent Redis servers, nodes 1 to N-1,
	// when Options asked for several; nil otherwise.
	RedisPeers []string
	// PGURL is the PostgreSQL database to use, e.g.
	// postgres://hammer@127.0.0.1:41235/hammer?sslmode=disable. It may hold
	// a password: do not print it.
	PGURL string
	// Notes are facts that bear on results, e.g. "local PostgreSQL runs
	// with fsync off".
	Notes []string

	mu       sync.Mutex
	closed   bool
	closeErr error
	stop     func() error  // stops what Start started; nil for External
	local    *localServers // set for Local only
}

// Start starts (or, for External, checks) the servers o asks for and
// returns them running. The returned error wraps ErrBadConfig or
// ErrUnavailable.
func Start(ctx context.Context, o Options) (*Stack, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	kind, err := defaultFinders().resolve(ctx, o)
	if err != nil {
		return nil, err
	}
	switch kind {
	case External:
		return startExternal(ctx, o)
	case Docker:
		return startDocker(ctx, o)
	default:
		return startLocal(ctx, o)
	}
}

// Close stops and removes what Start started: processes, containers and
// temporary directories. It does nothing for an External stack. Close may be
// called more than once; later calls return the first call's result.
func (s *Stack) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	if s.stop != nil {
		s.closeErr = s.stop()
	}
	return s.closeErr
}

// RestartRedis kills the Redis server and starts a fresh one on the same
// port without persistence, so every key is lost (a "lock-loss" fault). Only
// a Local stack can do this; other kinds return ErrUnsupported.
func (s *Stack) RestartRedis(ctx context.Context) error {
	if s.Kind != Local || s.local == nil {
		return fmt.Errorf("restart redis of a %s stack: %w", s.Kind, ErrUnsupported)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("restart redis: stack is closed")
	}
	if err := s.local.restartRedis(ctx); err != nil {
		return fmt.Errorf("restart redis: %w", err)
	}
	return nil
}
