package scenarios

import (
	"fmt"
	"strings"
	"time"
)

// Fault is a failure hammer injects during a race. Faults are driven by the
// coordinator on a schedule derived from the seed and recorded in the
// history with their start and end.
type Fault string

// The faults hammer can inject. See the README for what each one does.
const (
	// NoFault races without injecting anything.
	NoFault Fault = ""
	// Pause stops scheduled lock holders between their read and their write
	// (a pause point inside the worker) for three lock TTLs.
	Pause Fault = "pause"
	// PauseStop sends SIGSTOP to the worker process of a scheduled lock
	// holder between its read and its write, and SIGCONT three TTLs later.
	PauseStop Fault = "pause-stop"
	// ShortTTL makes the critical section of scheduled holders longer than
	// the lock TTL by injecting database latency (pg_sleep).
	ShortTTL Fault = "short-ttl"
	// LockLoss makes the lock key disappear while it is held: a real Redis
	// restart without persistence on a stack hammer manages, the deletion of
	// hammer's own lock key on an external one.
	LockLoss Fault = "lock-loss"
	// Crash sends SIGKILL to the worker of a scheduled contender in the
	// middle of its transaction.
	Crash Fault = "crash"
	// Duplicate sends every request twice at once with the same request id.
	Duplicate Fault = "duplicate"
	// SlowRelease delays a scheduled holder after its write until its lock
	// expired and was taken by the next holder, whose critical section is
	// made long; only then does the first holder release.
	SlowRelease Fault = "slow-release"
	// NetDelay adds latency to every connection to PostgreSQL for a window,
	// through an in-process TCP proxy.
	NetDelay Fault = "net-delay"
	// Partition cuts every connection to Redis and PostgreSQL for a window,
	// through an in-process TCP proxy.
	Partition Fault = "partition"
	// Failover runs Redis as a primary with a lagging replica; while a
	// holder has the lock the primary dies before the key replicated, the
	// replica is promoted and clients move to it. Needs a stack hammer
	// manages (local).
	Failover Fault = "failover"
)

// Faults returns every fault (NoFault excluded).
func Faults() []Fault {
	return []Fault{Pause, PauseStop, ShortTTL, LockLoss, Failover, Crash, Duplicate, SlowRelease, NetDelay, Partition}
}

// ParseFault returns the fault named s; "" and "none" mean NoFault.
func ParseFault(s string) (Fault, error) {
	if s == "" || s == "none" {
		return NoFault, nil
	}
	names := make([]string, 0, len(Faults()))
	for _, f := range Faults() {
		if string(f) == s {
			return f, nil
		}
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown fault %q (want none or one of %s)", s, strings.Join(names, ", "))
}

// Scheduled reports whether the fault hits chosen attempts (rather than
// every attempt or a time window).
func (f Fault) Scheduled() bool {
	switch f {
	case Pause, PauseStop, ShortTTL, LockLoss, Failover, Crash, SlowRelease:
		return true
	}
	return false
}

// Strikes is how many chosen lock holders a scheduled fault strikes; 0 for
// faults that strike none.
func (f Fault) Strikes() int {
	switch {
	case !f.Scheduled():
		return 0
	case f == Pause || f == ShortTTL:
		return 2
	}
	return 1
}

// MinHolders is the fewest contenders (and seats) a race needs for the
// fault's strikes to fall on holders in the first half of the sale, with
// one holder after the last strike: 0 for faults that strike none.
func (f Fault) MinHolders() int {
	if n := f.Strikes(); n > 0 {
		return 2*n + 3
	}
	return 0
}

// ExpiresLock reports whether the fault needs the lock to expire: it makes
// a holder outlive its TTL (a pause, a stop, a slow critical section or
// network, a late release) or leaves a lock only expiry frees (a holder
// killed, or cut off from Redis before it could release). Such a fault
// needs a TTL as short as the fault is long; every other race gets a TTL
// longer than any plausible stall of the host, so that a busy machine
// never expires a lock nobody meant to expire.
func (f Fault) ExpiresLock() bool {
	switch f {
	case Pause, PauseStop, ShortTTL, NetDelay, Partition, Crash, SlowRelease:
		return true
	}
	return false
}

// Copies is how many times each request is sent under the fault: twice
// at once under Duplicate, once otherwise.
func (f Fault) Copies() int {
	if f == Duplicate {
		return 2
	}
	return 1
}

// BreaksLock reports whether the fault is meant to make the lock stop
// being exclusive: a holder it touches may be overlapped by the next one
// (its TTL outlived, its key lost). Crash, duplicate and slow-release
// touch holders too, but a holder they touch must still be exclusive.
func (f Fault) BreaksLock() bool {
	switch f {
	case Pause, PauseStop, ShortTTL, LockLoss, Failover, NetDelay, Partition:
		return true
	}
	return false
}

// StallProofTTL is the lock TTL of every race whose fault does not need the
// lock to expire: longer than any stall a busy host plausibly inflicts on
// a lock holder, so that no lock expires that nobody meant to expire.
const StallProofTTL = 10 * time.Second

// minRecoveryTTL is the shortest TTL of a race whose fault needs the lock
// to expire only to recover (crash, slow-release) and must leave every
// mode safe: long enough that a stall of a busy host does not expire a
// lock too.
const minRecoveryTTL = time.Second

// LockTTL is the lock TTL of a race under the fault when none is asked
// for: short, the fault's own time scale, for a fault that breaks the lock
// by expiring it; at least minRecoveryTTL for one that needs the lock to
// expire only to recover from it; StallProofTTL otherwise.
func (f Fault) LockTTL(short time.Duration) time.Duration {
	switch {
	case f.ExpiresLock() && f.BreaksLock():
		return short
	case f.ExpiresLock():
		return max(short, minRecoveryTTL)
	}
	return StallProofTTL
}

// Proxied reports whether the fault needs the TCP proxy between the workers
// and the servers.
func (f Fault) Proxied() bool { return f == NetDelay || f == Partition }

// NeedsManagedStack reports whether the fault needs servers hammer started
// itself (it kills and replicates them).
func (f Fault) NeedsManagedStack() bool { return f == Failover }

// NeedsProcs is the fewest worker processes the fault can be shown with:
// stopping or killing a process needs another one to go on racing.
func (f Fault) NeedsProcs() int {
	if f == PauseStop || f == Crash {
		return 2
	}
	return 1
}
