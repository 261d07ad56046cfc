package driver

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/wire"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/scenarios"
)

// Command is how to start a worker process: hammer re-executes itself with a
// hidden subcommand.
type Command struct {
	Path string
	Args []string
}

// Options configure one race.
type Options struct {
	RunID      string // names the run's schema and key prefix; unique per results folder
	Scenario   scenarios.Scenario
	Procs      int
	Goroutines int
	Attempts   int // per goroutine
	Seats      int
	PoolSize   int // PostgreSQL connections per worker process
	// RedisPool is how many Redis connections each worker process's
	// goroutines share (default DefaultRedisPool).
	RedisPool int
	RedisURL  string
	PGURL     string
	LockTTL   time.Duration
	LockWait  time.Duration
	// Timeout bounds the race from the go signal to the last record.
	Timeout time.Duration
	// ReadyTimeout bounds how long workers may take to connect and warm up.
	ReadyTimeout time.Duration
	// ReadBackWait is how long the read-back after the race keeps trying
	// while PostgreSQL fails (default 15 s): a server that comes back in
	// time is read, so an oversell it holds is still counted.
	ReadBackWait time.Duration
	Seed         uint64
	Keep         bool // leave the schema and keys in place after the race
	// PauseFor is how long a pause, a stop or a network window lasts
	// (default three lock TTLs: longer than the lock lives; net-delay
	// keeps a third of it as latency for twice as long).
	PauseFor time.Duration
	// Managed is the stack when hammer started the servers itself (local),
	// nil otherwise. With it, lock-loss restarts Redis for real (without
	// it, hammer deletes its own lock key only) and failover can run.
	Managed *stack.Stack
	// OwnRedis gives every race a throw-away redis-server of its own
	// instead of RedisURL (and makes it the race's Managed Redis): for a
	// service whose Redis keys have fixed names, which no key prefix
	// keeps apart from other races' or anyone's keys.
	OwnRedis bool
	// Plant names a broken variant the worker binary registered (tests only).
	Plant string
	// OrdinaryStart keeps the workers' threads under ordinary scheduling
	// at the go instant; without it, in the closed model, each worker
	// that may (realtime.Supported) makes its start a real-time burst.
	OrdinaryStart bool

	// RedisPeers are the other Redis nodes of a lock taken as a Redlock
	// over Scenario.Nodes nodes: nodes 1 to N-1, node 0 being RedisURL.
	// Only the lock uses them; everything else hammer keeps in Redis (the
	// sold-out hint, the fault's holder counter, the stock counter, the
	// release announcements) stays on node 0. Empty for one node.
	RedisPeers []string

	// Contender names a kind of contender the worker binary offers in its
	// worker.Kit, and ContenderConfig is handed to it in every worker; empty
	// races the built-in strategy of the scenario's mode.
	Contender       string
	ContenderConfig json.RawMessage
	// Backend is what the contenders sell from; nil is hammer's own
	// inventory, raced by the built-in strategies.
	Backend Backend
	// Rate, if positive, switches to the open model: Rate attempts per
	// second in all, for Duration, each timed from its intended start.
	// Goroutines then caps how many run at once in each process.
	Rate     float64
	Duration time.Duration
	Worker   Command
	// Agents, when set, run the race's workers instead of child
	// processes: worker p on Agents[p], so Procs must equal their number.
	// They stay joined from race to race; the caller closes them.
	Agents []*agent.Agent
	// OnAttempt, if set, is called from one goroutine for every record as it arrives.
	OnAttempt func(history.Attempt)
	// OnGo, if set, is called with the worker pids right after the go signal.
	OnGo func(pids []int)
	// OnGoAt, if set, is called with the go signal's instant (Unix ns)
	// right after it was given.
	OnGoAt func(goAt int64)
	// OnFault, if set, is called with every fault event as it is
	// recorded, possibly from several goroutines at once; a fault with a
	// window (a partition, injected latency) is told when its window ended.
	OnFault func(history.FaultEvent)
	// OnStrike, if set, is called as a strike begins, by the coordinator
	// or by a worker that injects the fault itself (its Start, Proc,
	// Goroutine and RequestID set; End zero), possibly from several
	// goroutines at once; OnFault follows when the strike is recorded,
	// unless it missed and another holder is struck.
	OnStrike func(history.FaultEvent)
	// OnStage, if set, is told what the race is doing before its go
	// signal when that takes a while (a service's replicas starting), as
	// it begins and as it is done, from the race's goroutine.
	OnStage func(Stage)
}

// Result is what a race leaves: the run's description (including any
// reason its history is incomplete), every attempt, the ledger and the
// final sector row (nil if it could not be read).
type Result struct {
	Run history.Run
	history.Records
	// Latency holds the histograms the workers recorded, merged.
	Latency *latency.Set
	// Warnings are problems that do not touch the verdict, such as a
	// clean-up that failed and left the run's schema or keys behind.
	Warnings []string
	// Sector is the final sector row (also in Records.Sectors), nil if it
	// could not be read.
	Sector *history.Sector
}

const sectorID = 1

// DefaultRedisPool is the Redis connections a worker process shares among
// its goroutines unless Options say otherwise: a replica's client pool,
// not one connection per request.
const DefaultRedisPool = 16

// defaultReadBackWait is how long the read-back after a race keeps trying
// while PostgreSQL fails, unless Options say otherwise.
const defaultReadBackWait = 15 * time.Second

// Contenders is how many attempts the race makes: one per goroutine and
// attempt in the closed model, rate × duration in the open one (copies of
// a request sent twice not counted).
func (o Options) Contenders() int {
	if o.Rate > 0 {
		return history.OpenRequests(o.Rate, o.Duration)
	}
	return o.Procs * o.Goroutines * o.Attempts
}

// withDefaults fills in what o leaves at zero: faults last three lock
// TTLs, the read-back waits defaultReadBackWait, workers share
// DefaultRedisPool Redis connections.
func (o Options) withDefaults() Options {
	if o.PauseFor == 0 {
		o.PauseFor = 3 * o.LockTTL
	}
	if o.RedisPool == 0 {
		o.RedisPool = DefaultRedisPool
	}
	if o.ReadBackWait == 0 {
		o.ReadBackWait = defaultReadBackWait
	}
	if o.Backend == nil {
		o.Backend = builtinBackend{mode: o.Scenario.Mode, redisURL: o.RedisURL}
	}
	return o
}

// newRun describes the race in the manifest: what was raced, the same
// whether it raced or not.
func newRun(o Options) history.Run {
	return history.Run{
		Name: o.Scenario.Name, Mode: o.Scenario.Mode, Procs: o.Procs, Goroutines: o.Goroutines,
		Seats: o.Seats, Expected: o.Scenario.Expected, Fault: o.Scenario.Fault,
		LockTTL: int64(o.LockTTL), Extend: o.Scenario.Extend, NoHint: o.Scenario.NoHint, Lock: o.Scenario.LockName(),
		Rate: o.Rate, Duration: int64(o.Duration), RedisNodes: redlockNodes(o),
	}
}

// redlockNodes is how many Redis nodes the race's lock is a Redlock over,
// 0 when it is the lock on one Redis.
func redlockNodes(o Options) int {
	if len(o.RedisPeers) == 0 {
		return 0
	}
	return len(o.RedisPeers) + 1
}

// hostWorkers is how many of the race's workers share worker p's host:
// every worker when they are this process's children, else the workers
// whose agents gave the same host name as p's. Agents in containers of
// one machine give their containers' names and count as alone: their
// CPU limits, which Go's runtime follows, or GOMAXPROCS in their
// environment size them.
func hostWorkers(o Options, p int) int {
	if len(o.Agents) == 0 {
		return o.Procs
	}
	n := 0
	for _, a := range o.Agents {
		if a.Host == o.Agents[p].Host {
			n++
		}
	}
	return n
}

// newWorkerConfig is what every worker of the race is told.
func newWorkerConfig(o Options, schema, prefix string) wire.Config {
	return wire.Config{
		Run: o.Scenario.Name, Mode: o.Scenario.Mode, Goroutines: o.Goroutines, Attempts: o.Attempts,
		RedisURL: o.RedisURL, RedisPeers: o.RedisPeers, PGURL: o.PGURL, Schema: schema,
		LockKey: o.Backend.LockKey(prefix), Sector: sectorID,
		LockTTL: o.LockTTL, LockWait: o.LockWait, PoolSize: o.PoolSize, RedisPool: o.RedisPool, Seed: o.Seed,
		Fault: o.Scenario.Fault, Extend: o.Scenario.Extend, SoldOutHint: !o.Scenario.NoHint, Lock: o.Scenario.LockName(),
		FenceKey: prefix + "fence:sector:" + fmt.Sprint(sectorID), FaultKey: prefix + "fault:holders",
		StockKey: stockKey(o.Backend, prefix),
		Schedule: fault.Schedule(o.Scenario.Fault, o.Seed, o.Scenario.Name, o.Seats, o.Contenders()),
		PauseFor: o.PauseFor, Plant: o.Plant, Contender: o.Contender, ContenderConfig: o.ContenderConfig,
		Realtime: !o.OrdinaryStart && o.Rate == 0, // the open model has no start burst
	}
}
