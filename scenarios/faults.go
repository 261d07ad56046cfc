package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Fault is a failure hammer injects during a race, by name. What a fault
// does lives in internal/fault, one file each; what is known of it before
// the race (how many holders it strikes, whether it needs a proxy, …) is
// its row of the fault table, which every caller reads through Fault's
// methods.
type Fault string

// NoFault races without injecting anything.
const NoFault Fault = ""

// The faults hammer can inject. See docs/faults.md for what each one does.
const (
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
	// Failover runs Redis as a primary with a lagging replica; while a
	// holder has the lock the primary dies before the key replicated, the
	// replica is promoted and clients move to it.
	Failover Fault = "failover"
	// Crash sends SIGKILL to the worker of a scheduled contender in the
	// middle of its transaction.
	Crash Fault = "crash"
	// Duplicate sends every request twice at once with the same request id.
	Duplicate Fault = "duplicate"
	// SlowRelease delays a scheduled holder after its write until its lock
	// expired and was taken by the next holder, whose critical section is
	// made long; only then does the first holder release.
	SlowRelease Fault = "slow-release"
	// NetDelay adds latency to every connection to Redis and PostgreSQL for
	// a window, through an in-process TCP proxy.
	NetDelay Fault = "net-delay"
	// Partition cuts every connection to Redis and PostgreSQL for a window,
	// through an in-process TCP proxy.
	Partition Fault = "partition"
	// NodeRestart strikes a Redlock over several Redis nodes: the holder is
	// left a bare majority (its key on the other nodes lost, as if its SET
	// never reached them), then a node of that majority restarts without
	// persistence, so that another contender wins a majority.
	NodeRestart Fault = "node-restart"
	// ClockJump is NodeRestart with the holder's key on a node of its
	// majority expiring early, as a jump of that node's wall clock would
	// make it (emulated with a PEXPIRE of 1 ms).
	ClockJump Fault = "clock-jump"
)

// TTLChoice is how a race under a fault picks its lock TTL when none is
// asked for.
type TTLChoice int

const (
	// StallProof: StallProofTTL, longer than any stall of a busy host, for
	// a fault that does not need the lock to expire.
	StallProof TTLChoice = iota
	// Short: the race's fault TTL, the fault's own time scale, for a fault
	// that breaks the lock by making a holder outlive it.
	Short
	// Recovery: the fault TTL but at least minRecoveryTTL, for a fault that
	// needs the lock to expire only to recover (a killed holder's lock).
	Recovery
)

// FaultSpec is one row of the fault table: what is known of a fault
// before the race.
type FaultSpec struct {
	Fault Fault
	// Strikes is how many chosen lock holders the fault strikes; 0 for a
	// fault that strikes every request or a window of time.
	Strikes int
	// Copies is how many times each request is sent (duplicate: twice at
	// once, with the same request id).
	Copies int
	// TTL is how the race's lock TTL is chosen; anything but StallProof
	// means the fault needs the lock to expire.
	TTL TTLChoice
	// BreaksLock: a holder the fault touches may be overlapped by the next
	// one (its TTL outlived, its key lost). Crash, duplicate and
	// slow-release touch holders too, but those must stay exclusive.
	BreaksLock bool
	// Proxied: the fault acts through a TCP proxy between the workers and
	// the servers, for a window of time after the go signal.
	Proxied bool
	// NeedsManagedStack: the fault kills or replicates servers, so they
	// must be ones hammer started itself (--stack local).
	NeedsManagedStack bool
	// NeedsProcs is the fewest worker processes the fault can be shown
	// with: stopping or killing a process needs another to go on racing.
	NeedsProcs int
	// ExplainsErrors: an attempt may fail with an error under the fault
	// without the strategy being broken (a server or a process was taken
	// away from it).
	ExplainsErrors bool
	// OnService: the fault can strike a user's service, a black box: it
	// acts on processes, servers or requests, not at a point inside
	// hammer's own strategies.
	OnService bool
	// TakesRedisState: the fault takes away what Redis holds (the lock
	// key, the stock counter), so it shows nothing in a mode that keeps
	// nothing in Redis.
	TakesRedisState bool
	// Quorum: the fault strikes a node of the majority a Redlock holder
	// holds, so it needs a mode with a lock and a lock over MinQuorumNodes
	// Redis nodes or more.
	Quorum bool
	// StopsProcesses: the fault stops (SIGSTOP) or kills a process in the
	// middle of the race (a worker, or a service's replica), so the
	// workers send each record the moment its attempt ends rather than
	// keeping it for later: a stopped or killed worker cannot send what
	// it holds.
	StopsProcesses bool
	// Pauses is how many pause lengths (the race's PauseFor: three lock
	// TTLs in a race whose fault expires the lock) the fault may last once
	// it strikes, at worst: a pause, a stop, injected latency or a network
	// window. A fault that strikes two holders counts two, since the
	// second strike may come only after the first one ended (pause holds
	// its process's heartbeats, so two struck holders of one process
	// pause one after the other); net-delay keeps its latency for two
	// (this column sets its window: internal/fault reads it). A fault that
	// waits a lock out counts what that may take: a crashed holder's lock
	// expires within a TTL (one pause); slow-release holds its release
	// until the next holder took its lock, for up to ten TTLs when none
	// does (every waiter gave up), then slows that holder by half a TTL
	// (four). 0 for a fault that does not last.
	Pauses int
}

// faultTable is the fault table, in the order matrices and help list the
// faults. Adding a fault is a row here plus its behaviour in internal/fault.
func faultTable() []FaultSpec {
	return []FaultSpec{
		{Fault: Pause, Strikes: 2, Copies: 1, TTL: Short, BreaksLock: true, NeedsProcs: 1, Pauses: 2},
		{Fault: PauseStop, Strikes: 1, Copies: 1, TTL: Short, BreaksLock: true, NeedsProcs: 2, OnService: true, StopsProcesses: true, Pauses: 1},
		{Fault: ShortTTL, Strikes: 2, Copies: 1, TTL: Short, BreaksLock: true, NeedsProcs: 1, Pauses: 2},
		{Fault: LockLoss, Strikes: 1, Copies: 1, TTL: StallProof, BreaksLock: true, NeedsProcs: 1, ExplainsErrors: true, OnService: true, TakesRedisState: true},
		{Fault: Failover, Strikes: 1, Copies: 1, TTL: StallProof, BreaksLock: true, NeedsManagedStack: true, NeedsProcs: 1, ExplainsErrors: true, OnService: true, TakesRedisState: true},
		{Fault: Crash, Strikes: 1, Copies: 1, TTL: Recovery, NeedsProcs: 2, ExplainsErrors: true, OnService: true, StopsProcesses: true, Pauses: 1},
		{Fault: Duplicate, Copies: 2, TTL: StallProof, NeedsProcs: 1, OnService: true},
		{Fault: SlowRelease, Strikes: 1, Copies: 1, TTL: Recovery, NeedsProcs: 1, Pauses: 4},
		{Fault: NetDelay, Copies: 1, TTL: Short, BreaksLock: true, Proxied: true, NeedsProcs: 1, ExplainsErrors: true, OnService: true, Pauses: 2},
		{Fault: Partition, Copies: 1, TTL: Short, BreaksLock: true, Proxied: true, NeedsProcs: 1, ExplainsErrors: true, OnService: true, Pauses: 1},
		{Fault: NodeRestart, Strikes: 1, Copies: 1, TTL: StallProof, BreaksLock: true, NeedsManagedStack: true, NeedsProcs: 1, ExplainsErrors: true, Quorum: true},
		{Fault: ClockJump, Strikes: 1, Copies: 1, TTL: StallProof, BreaksLock: true, NeedsProcs: 1, Quorum: true},
	}
}

// Faults returns every fault (NoFault excluded), in table order.
func Faults() []Fault {
	var out []Fault
	for _, s := range faultTable() {
		out = append(out, s.Fault)
	}
	return out
}

// ParseFault returns the fault named s; "" and "none" mean NoFault.
func ParseFault(s string) (Fault, error) {
	if s == "" || s == "none" {
		return NoFault, nil
	}
	if f := Fault(s); slices.Contains(Faults(), f) {
		return f, nil
	}
	names := make([]string, 0, len(faultTable()))
	for _, f := range Faults() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown fault %q (want none or one of %s)", s, strings.Join(names, ", "))
}

// Spec is the fault's row of the fault table (a race without a fault, or
// with one hammer does not know, gets the row of no fault).
func (f Fault) Spec() FaultSpec {
	for _, s := range faultTable() {
		if s.Fault == f {
			return s
		}
	}
	return FaultSpec{Fault: NoFault, Copies: 1, TTL: StallProof, NeedsProcs: 1}
}

// Scheduled reports whether the fault hits chosen lock holders (rather
// than every request or a window of time).
func (f Fault) Scheduled() bool { return f.Spec().Strikes > 0 }

// Strikes is how many chosen lock holders the fault strikes.
func (f Fault) Strikes() int { return f.Spec().Strikes }

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
// a holder outlive its TTL or leaves a lock only expiry frees. Such a
// fault needs a TTL as short as the fault is long; every other race gets
// a TTL longer than any plausible stall of the host, so that a busy
// machine never expires a lock nobody meant to expire.
func (f Fault) ExpiresLock() bool { return f.Spec().TTL != StallProof }

// Lasts is the longest the fault may last once it strikes, in a race
// whose pauses last pause; 0 for a fault that does not last.
func (f Fault) Lasts(pause time.Duration) time.Duration {
	return time.Duration(f.Spec().Pauses) * pause
}

// Copies is how many times each request is sent under the fault.
func (f Fault) Copies() int { return f.Spec().Copies }

// BreaksLock reports whether the fault is meant to make the lock stop
// being exclusive: a holder it touches may be overlapped by the next one.
func (f Fault) BreaksLock() bool { return f.Spec().BreaksLock }

// ExplainsErrors reports whether an attempt may fail with an error under
// the fault without the strategy being broken.
func (f Fault) ExplainsErrors() bool { return f.Spec().ExplainsErrors }

// Proxied reports whether the fault acts through a TCP proxy between the
// workers and the servers, for a window of time.
func (f Fault) Proxied() bool { return f.Spec().Proxied }

// NeedsManagedStack reports whether the fault needs servers hammer started
// itself (it kills and replicates them).
func (f Fault) NeedsManagedStack() bool { return f.Spec().NeedsManagedStack }

// TakesRedisState reports whether the fault takes away what Redis holds
// (the lock key, the stock counter).
func (f Fault) TakesRedisState() bool { return f.Spec().TakesRedisState }

// OnService reports whether the fault can strike a user's service.
func (f Fault) OnService() bool { return f.Spec().OnService }

// Quorum reports whether the fault strikes a node of a Redlock holder's
// majority (it needs a lock over MinQuorumNodes Redis nodes or more).
func (f Fault) Quorum() bool { return f.Spec().Quorum }

// StopsProcesses reports whether the fault stops or kills a process in the
// middle of the race.
func (f Fault) StopsProcesses() bool { return f.Spec().StopsProcesses }

// MinQuorumNodes is the fewest Redis nodes a fault that strikes a node of
// a Redlock's majority can be shown on: with one, there is no majority to
// be left with a node fewer.
const MinQuorumNodes = 3

// NeedsProcs is the fewest worker processes the fault can be shown with.
func (f Fault) NeedsProcs() int { return f.Spec().NeedsProcs }

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
// for, chosen as the fault's row says from the race's short fault TTL.
func (f Fault) LockTTL(short time.Duration) time.Duration {
	switch f.Spec().TTL {
	case Short:
		return short
	case Recovery:
		return max(short, minRecoveryTTL)
	}
	return StallProofTTL
}
