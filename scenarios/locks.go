package scenarios

import (
	"fmt"
	"strings"
)

// Lock names the per-sector lock a race's contenders take in the modes
// with a lock: hammer's own, or a published lock library behind the same
// interface (internal/locks), so the same modes and faults judge them all.
type Lock string

// The locks hammer can race. The zero Lock is hammer's own.
const (
	// HammerLock is hammer's own lock (internal/hammerlock): SET NX PX, an
	// owner-checked release, waiters in line with a handoff, fencing
	// tokens in mode fenced.
	HammerLock Lock = "hammer"
	// Redsync is github.com/go-redsync/redsync/v4 with its own defaults
	// (32 tries, a random 50–250 ms delay between them).
	Redsync Lock = "redsync"
	// Redislock is github.com/bsm/redislock with a linear 10 ms retry.
	Redislock Lock = "redislock"
)

// Locks returns every lock, hammer's own first.
func Locks() []Lock { return []Lock{HammerLock, Redsync, Redislock} }

// ParseLock returns the lock named s; "" is hammer's own.
func ParseLock(s string) (Lock, error) {
	if s == "" {
		return HammerLock, nil
	}
	names := make([]string, 0, len(Locks()))
	for _, l := range Locks() {
		if string(l) == s {
			return l, nil
		}
		names = append(names, string(l))
	}
	return "", fmt.Errorf("unknown lock %q (want one of %s)", s, strings.Join(names, ", "))
}

// Library reports whether l is a lock library rather than hammer's own lock.
func (l Lock) Library() bool { return l != "" && l != HammerLock }

// Handoff reports whether the waiters for the lock in mode m wait in
// hammer's line, woken by its releases: hammer's own lock in a mode with a
// lock (a library's waiters poll the way the library does).
func (l Lock) Handoff(m Mode) bool { return m.UsesLock() && !l.Library() }

// Fences reports whether the lock hands out fencing tokens, which mode
// fenced needs: only hammer's own does (neither library has a counter
// that grows with every acquisition).
func (l Lock) Fences() bool { return !l.Library() }

// Module is where the lock comes from, for reports.
func (l Lock) Module() string {
	switch l {
	case Redsync:
		return "github.com/go-redsync/redsync/v4"
	case Redislock:
		return "github.com/bsm/redislock"
	}
	return "hammer's own (internal/hammerlock)"
}

// CheckMode says why a race of mode m cannot take lock l, or nil: a
// library needs a mode that takes a lock, and mode fenced a lock that
// hands out fencing tokens.
func (l Lock) CheckMode(m Mode) error {
	switch {
	case !l.Library():
		return nil
	case !m.UsesLock():
		return fmt.Errorf("%s needs a mode that takes a lock (lock-only or lock-plus-update), not %s", l, m)
	case m == Fenced && !l.Fences():
		return fmt.Errorf("%s hands out no fencing token, which mode fenced needs (only hammer's own lock does)", l)
	}
	return nil
}

// LockName is the lock the scenario's contenders take: hammer's own unless
// it names a library, and none ("") in a mode without a lock.
func (s Scenario) LockName() Lock {
	switch {
	case !s.Mode.UsesLock():
		return ""
	case s.Lock == "":
		return HammerLock
	}
	return s.Lock
}

// CheckNodes reports whether the lock can be taken over nodes Redis nodes:
// hammer's own lock and redsync take a majority of them (Redlock),
// bsm/redislock works on one Redis only.
func (l Lock) CheckNodes(nodes int) error {
	if l == Redislock && nodes > 1 {
		return fmt.Errorf("%s works on one Redis node, not a Redlock over %d", l, nodes)
	}
	return nil
}
