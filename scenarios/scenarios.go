// Package scenarios says what hammer races: the reservation modes under test
// and the matrix of scenarios, each with the outcome it is expected to show.
// Scenarios are plain values so a user can add one by adding a row.
package scenarios

import (
	"fmt"
	"strings"
)

// Mode is a reservation strategy under test.
type Mode string

// The modes hammer knows. See docs/modes.md for what each one does.
const (
	// None reads the available count and writes it back minus one, with no
	// lock: the negative control that must be seen overselling.
	None Mode = "none"
	// LockOnly wraps the same read-then-write in a per-sector Redis lock.
	LockOnly Mode = "lock-only"
	// UpdateOnly takes the seat with one conditional UPDATE … WHERE available > 0.
	UpdateOnly Mode = "update-only"
	// LockPlusUpdate takes the Redis lock, then does the conditional UPDATE.
	LockPlusUpdate Mode = "lock-plus-update"
	// Fenced takes a lock that also hands out a fencing token; the sector
	// accepts a write only from the newest token that has touched it.
	Fenced Mode = "fenced"
	// SkipLocked keeps one row per seat: a contender locks a free one with
	// SELECT … FOR UPDATE SKIP LOCKED LIMIT 1, marks it sold and writes the
	// sale in the same transaction, so sales of different seats never
	// queue behind one hot row.
	SkipLocked Mode = "skip-locked"
	// RedisGate admits contenders with an atomic decrement-if-positive stock
	// counter in Redis; an admitted contender then takes the seat with the
	// conditional UPDATE of update-only, the backstop. A refused one is
	// told sold out without touching PostgreSQL.
	RedisGate Mode = "redis-gate"
	// CounterOnly is redis-gate without the backstop: the stock counter
	// alone decides, the admitted contender records the seat the counter
	// gave it. The negative control of redis-gate: it oversells as soon as
	// the counter is wrong.
	CounterOnly Mode = "counter-only"
)

// Modes returns every mode in the order matrices run them.
func Modes() []Mode {
	return []Mode{None, LockOnly, UpdateOnly, LockPlusUpdate, Fenced, SkipLocked, RedisGate, CounterOnly}
}

// ParseMode returns the mode named s, or an error listing the known modes.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes() {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, 0, len(Modes()))
	for _, m := range Modes() {
		names = append(names, string(m))
	}
	return "", fmt.Errorf("unknown mode %q (want one of %s)", s, strings.Join(names, ", "))
}

// UsesLock reports whether contenders in this mode take the Redis lock.
func (m Mode) UsesLock() bool { return m == LockOnly || m == LockPlusUpdate || m == Fenced }

// UsesStock reports whether contenders in this mode are admitted by a stock
// counter in Redis.
func (m Mode) UsesStock() bool { return m == RedisGate || m == CounterOnly }

// SeatRows reports whether the mode keeps one row per seat in PostgreSQL.
func (m Mode) SeatRows() bool { return m == SkipLocked }

// CountsInDB reports whether PostgreSQL counts the seats left of the mode's
// sector; counter-only keeps its stock in Redis alone, PostgreSQL only its
// ledger.
func (m Mode) CountsInDB() bool { return m != CounterOnly }

// KeepsInRedis reports whether the mode keeps in Redis something a fault
// can take away: a lock or a stock counter.
func (m Mode) KeepsInRedis() bool { return m.UsesLock() || m.UsesStock() }

// CheckFault says why a race of mode m cannot show fault f, or nil: a
// fault that takes away what Redis holds shows nothing in a mode that keeps
// nothing there.
func (m Mode) CheckFault(f Fault) error {
	if f.TakesRedisState() && !m.KeepsInRedis() {
		return fmt.Errorf("the %s fault takes away what Redis holds (a lock, a stock counter), and mode %s keeps nothing there", f, m)
	}
	if f.Quorum() && !m.UsesLock() {
		return fmt.Errorf("the %s fault strikes a node of a lock holder's majority, and mode %s takes no lock", f, m)
	}
	return nil
}

// Expectation is what a scenario is expected to show.
type Expectation string

// The expectations a run can carry.
const (
	// Safe: the run must sell at most the seats that exist and pass every check.
	Safe Expectation = "safe"
	// Unsafe: the run must be caught overselling (a negative control).
	Unsafe Expectation = "unsafe"
)

// Scenario is one race of a matrix: a name, a mode, an optional fault and
// what it must show.
type Scenario struct {
	Name   string
	Mode   Mode
	Fault  Fault // NoFault for none
	Extend bool  // holders keep extending the lock's TTL while they work
	// NoHint turns off the sold-out hint, with which lock waiters answer
	// "sold out" once anyone was told so by the database instead of
	// queueing for the lock (on by default in the modes with a lock).
	NoHint bool
	// Nodes is how many independent Redis nodes the lock is taken on: a
	// Redlock over a majority of them when more than one (odd). 0 and 1
	// mean the single-node lock. Everything else kept in Redis stays on
	// node 0; only the modes with a lock use the other nodes.
	Nodes int
	// Lock is the lock of a mode with a lock: "" or HammerLock for
	// hammer's own, or a lock library (see Lock.CheckMode for where one
	// can race).
	Lock     Lock
	Expected Expectation
}

// CellName names a scenario of a matrix: "mode", "mode/fault", and
// "+extend" after it for that option (Named adds the others).
func CellName(m Mode, f Fault, extend bool) string {
	name := string(m)
	if f != NoFault {
		name += "/" + string(f)
	}
	if extend {
		name += "+extend"
	}
	return name
}

// Named returns s named after its mode, fault and options: "+extend",
// "+no-hint", "+nodes=N" and "+" and the lock library, the last three only
// where the mode has a lock, the only place they work
// ("lock-only/pause+redsync", "lock-only/node-restart+nodes=5").
func (s Scenario) Named() Scenario {
	s.Name = CellName(s.Mode, s.Fault, s.Extend)
	if s.NoHint && s.Mode.UsesLock() {
		s.Name += "+no-hint"
	}
	if s.Nodes > 1 && s.Mode.UsesLock() {
		s.Name += fmt.Sprintf("+nodes=%d", s.Nodes)
	}
	if l := s.LockName(); l.Library() {
		s.Name += "+" + string(l)
	}
	return s
}

// MaxNodes is the most Redis nodes a scenario may race on: a local stack
// starts a redis-server for each, so a mistyped count (nodes=1000001)
// must be refused, not started. A Redlock is usually taken on 5.
const MaxNodes = 15

// CheckNodes says why s cannot race on its Redis nodes, or nil: their
// number must be odd (a majority of an even number survives no more
// failed nodes than of one fewer) and at most MaxNodes, and a fault that
// strikes a node of a Redlock's majority needs MinQuorumNodes or more.
func (s Scenario) CheckNodes() error {
	n := max(s.Nodes, 1)
	switch {
	case s.Nodes < 0 || n%2 == 0:
		return fmt.Errorf("want an odd number of Redis nodes, at least 1 (a majority of an even number survives no more failed nodes than of one fewer), got %d", s.Nodes)
	case n > MaxNodes:
		return fmt.Errorf("want at most %d Redis nodes (a local stack starts a Redis server for each), got %d", MaxNodes, n)
	case s.Fault.Quorum() && n < MinQuorumNodes:
		return fmt.Errorf("the %s fault strikes a node of a Redlock holder's majority: it needs %d or more Redis nodes, got %d", s.Fault, MinQuorumNodes, n)
	}
	return nil
}

// Load is the matrix `hammer load` runs: every mode once, without faults.
// The negative control is expected unsafe: if it does not oversell, the race
// produced no contention and the run cannot be trusted to see an oversell.
func Load() []Scenario {
	return []Scenario{
		{Name: "none", Mode: None, Expected: Unsafe},
		{Name: "lock-only", Mode: LockOnly, Expected: Safe},
		{Name: "update-only", Mode: UpdateOnly, Expected: Safe},
		{Name: "lock-plus-update", Mode: LockPlusUpdate, Expected: Safe},
		{Name: "fenced", Mode: Fenced, Expected: Safe},
		{Name: "skip-locked", Mode: SkipLocked, Expected: Safe},
		{Name: "redis-gate", Mode: RedisGate, Expected: Safe},
		{Name: "counter-only", Mode: CounterOnly, Expected: Safe},
	}
}
