// Package history holds what a race leaves behind: one Attempt per contender,
// the Sale rows read back from the ledger, the final Sector row and the
// Manifest that says which runs a results folder holds: the format the
// driver, package folder, the verifier and the report agree on.
package history

import (
	"fmt"
	"time"

	"github.com/hammer-load/hammer/scenarios"
)

// Outcome is how one attempt ended, as the contender saw it.
type Outcome string

// The outcomes an attempt can end with.
const (
	// Sold: the contender was told it got a seat.
	Sold Outcome = "sold"
	// SoldOut: the contender was told there were no seats left.
	SoldOut Outcome = "sold_out"
	// LockTimeout: the contender gave up waiting for the lock.
	LockTimeout Outcome = "lock_timeout"
	// Error: the attempt failed; whether its write committed is not known.
	Error Outcome = "error"
	// Unknown: the attempt never reported (its worker died or the run timed out).
	Unknown Outcome = "unknown"
	// Rejected: the database refused the write: a newer fencing token had
	// touched the sector, or the request id had already bought a seat.
	Rejected Outcome = "rejected"
)

// The servers a race depends on, as Attempt.Infra and Outage.Server name them.
const (
	ServerRedis      = "redis"
	ServerPostgreSQL = "postgresql"
)

// Indeterminate reports whether an attempt with this outcome may or may not
// have written a sale: the contender cannot know, so the verifier allows both.
func (o Outcome) Indeterminate() bool { return o == Error || o == Unknown }

// Attempt is one contender's try at buying a seat. Timestamps are Unix
// nanoseconds from the wall clock, which every process on one host shares;
// zero means the phase did not happen.
type Attempt struct {
	Run       string         `json:"run"`
	Mode      scenarios.Mode `json:"mode"`
	Proc      int            `json:"proc"`
	Goroutine int            `json:"goroutine"`
	RequestID string         `json:"request_id"`
	// Try tells apart the copies of a request sent more than once (the
	// duplicate fault); 0 otherwise.
	Try int `json:"try,omitempty"`
	// Intended is when the attempt should have started in the open model
	// (--rate); its latency counts from here, so a stall shows up instead
	// of hiding (coordinated omission). Zero in the closed model.
	Intended     int64 `json:"intended_ns,omitempty"`
	Invoke       int64 `json:"invoke_ns"`
	LockAcquired int64 `json:"lock_acquired_ns,omitempty"`
	// LockSent is when the command that gave the lock its TTL was sent:
	// the lock lived at least a TTL from then, whereas LockAcquired, taken
	// when the command answered, can be late by a stalled round trip.
	// Zero when the lock library does not tell.
	LockSent int64 `json:"lock_sent_ns,omitempty"`
	// LockReleasing is when the holder sent its release, LockReleased
	// when the release answered.
	LockReleasing int64 `json:"lock_releasing_ns,omitempty"`
	LockReleased  int64 `json:"lock_released_ns,omitempty"`
	DBStart       int64 `json:"db_start_ns,omitempty"`
	DBEnd         int64 `json:"db_end_ns,omitempty"`
	Complete      int64 `json:"complete_ns"`
	// ReadAt and ReadAvailable record the read of a read-then-write mode:
	// when it happened and the available count it saw.
	ReadAt        int64 `json:"read_ns,omitempty"`
	ReadAvailable *int  `json:"read_available,omitempty"`
	// Token is the fencing token the lock handed out (fenced mode).
	Token   int64   `json:"token,omitempty"`
	Outcome Outcome `json:"outcome"`
	// Hinted is set when the answer "sold out" came from the sold-out
	// hint, before or while waiting for the lock, not from the database.
	Hinted bool   `json:"sold_out_hint,omitempty"`
	Seat   int    `json:"seat,omitempty"`
	Err    string `json:"error,omitempty"`
	// LockLost is set when the release found the lock no longer ours: it
	// expired (or vanished) while this contender held it.
	LockLost bool `json:"lock_lost,omitempty"`
	// Extended is when the holder's heartbeat (--extend) last extended
	// the lock's TTL, and ExtendFailed when an extension first failed or
	// found the lock no longer its own; zero when it never did.
	Extended     int64 `json:"extended_ns,omitempty"`
	ExtendFailed int64 `json:"extend_failed_ns,omitempty"`
	// Infra names the server ("redis" or "postgresql") whose failure
	// ended the attempt in error: it refused, reset or timed out the
	// connection, ran out of connections or was shutting down. Empty when
	// the error is the strategy's own answer.
	Infra string `json:"infra,omitempty"`
	// Replica names the replica of a user's service that the attempt's
	// request went to, "r<i> <host:port>" (i its 0-based index, e.g.
	// "r1 127.0.0.1:41234"); empty for the built-in strategies.
	Replica string `json:"replica,omitempty"`
	// Status is the HTTP status of the service's answer; zero when there
	// was none, or for the built-in strategies.
	Status int `json:"status,omitempty"`
	// Trace is the W3C trace id (32 lower-case hex digits) of the
	// traceparent header sent with the request to a user's service, and
	// Span the parent span id in it (16 hex digits): hammer's span of
	// the attempt, which the service's spans are children of. Empty for
	// the built-in strategies and in folders written before hammer sent
	// the header.
	Trace string `json:"trace,omitempty"`
	Span  string `json:"span,omitempty"`
}

// Sale is one row of the sales ledger as read back after a run.
type Sale struct {
	Run       string `json:"run"`
	Sector    int    `json:"sector"`
	Seat      int    `json:"seat"`
	RequestID string `json:"request_id"`
	Worker    string `json:"worker"`
	StartedAt int64  `json:"started_ns"`
	SoldAt    int64  `json:"sold_ns"`
}

// Sector is the final row of one sector after a run.
type Sector struct {
	Run       string `json:"run"`
	ID        int    `json:"id"`
	Capacity  int    `json:"capacity"`
	Available int    `json:"available"`
}

// Offset renders instant at (Unix ns) as an offset from the go signal goAt:
// "+30.0ms" within the first second, "+1.3s" after.
func Offset(goAt, at int64) string {
	d := time.Duration(at - goAt)
	if d > -time.Second && d < time.Second {
		return fmt.Sprintf("%+.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%+.1fs", d.Seconds())
}

// OpenRequests is how many requests an open-model run makes: rate per
// second for duration, rounded to the nearest whole request.
func OpenRequests(rate float64, duration time.Duration) int {
	return int(rate*duration.Seconds() + 0.5)
}

// FaultEvent is one injected fault: what was done, to whom, from when to
// when (Unix ns). Reports use it to show when faults happened.
type FaultEvent struct {
	Run       string          `json:"run"`
	Fault     scenarios.Fault `json:"fault"`
	Proc      int             `json:"proc"`
	Goroutine int             `json:"goroutine"`
	RequestID string          `json:"request_id,omitempty"`
	Start     int64           `json:"start_ns"`
	End       int64           `json:"end_ns"`
	// Detail says in plain words what was done, e.g. "SIGSTOP of worker 1 (pid 4242) for 600ms".
	Detail string `json:"detail"`
	// Failed says why the injection failed; empty when it worked. A run
	// whose fault failed cannot be judged as if it had struck.
	Failed string `json:"failed,omitempty"`
	// Unmet says what of the fault's timeline did not happen although it
	// struck, e.g. "nobody took the lock before the old holder went on":
	// the holder it held back and the next one never overlapped. Such a
	// run cannot show what the fault does to a strategy.
	Unmet string `json:"unmet,omitempty"`
}

// Run describes one race in a results folder: what was raced and what went
// wrong with the infrastructure while it ran.
type Run struct {
	Name       string                `json:"name"`
	Mode       scenarios.Mode        `json:"mode"`
	Procs      int                   `json:"procs"`
	Goroutines int                   `json:"goroutines"`
	Seats      int                   `json:"seats"`
	Expected   scenarios.Expectation `json:"expected,omitempty"`
	// Fault is the injected fault, empty for none.
	Fault scenarios.Fault `json:"fault,omitempty"`
	// LockTTL is the lock's time to live in nanoseconds; Extend tells
	// whether holders kept extending it.
	LockTTL int64 `json:"lock_ttl_ns,omitempty"`
	Extend  bool  `json:"extend,omitempty"`
	// NoHint tells that the sold-out hint was off: lock waiters queued
	// for the lock even once the sector had sold out.
	NoHint bool `json:"no_sold_out_hint,omitempty"`
	// RedisNodes is how many Redis nodes the lock was a Redlock over (a
	// majority of them made a holder); 0 for the lock on one Redis.
	RedisNodes int `json:"redis_nodes,omitempty"`
	// Lock names the lock the contenders took in a mode with a lock:
	// hammer's own ("hammer"), or a lock library ("redsync",
	// "redislock"); empty in a mode without one, and in folders written
	// before hammer raced libraries (hammer's own, then).
	Lock scenarios.Lock `json:"lock,omitempty"`
	// Rate and Duration describe an open-model run (attempts per second
	// for Duration ns); zero for the closed model, where every contender
	// fires at the go signal.
	Rate     float64 `json:"rate,omitempty"`
	Duration int64   `json:"duration_ns,omitempty"`
	GoAt     int64   `json:"go_ns"`
	// RequestsPerWorker is how many attempt records the race made for each
	// worker process, by process number: one per request, two per request
	// under the duplicate fault. Verify counts the attempts history.jsonl
	// holds against it; nil for a run that never raced.
	RequestsPerWorker []int `json:"requests_per_worker,omitempty"`
	// CommitLatency is the commit latency of the race's PostgreSQL in
	// nanoseconds, measured in its schema just before the race: the
	// median of serial single-row-update commits. The report's physical
	// floor is Seats times it. Zero when it was not measured (the run
	// never raced, or the measurement failed).
	CommitLatency int64 `json:"commit_latency_ns,omitempty"`
	// RealtimeWorkers is how many worker processes started their
	// contenders in a real-time burst (SCHED_FIFO from just before the go
	// instant until all had started; see internal/realtime), as each said
	// when done (a worker killed before that: as it announced when
	// ready). The others started them under ordinary scheduling, as every
	// worker does in the open model, with --realtime-start=false, or
	// without the privilege.
	RealtimeWorkers int `json:"realtime_workers,omitempty"`
	// WorkerGoMaxProcs is the largest GOMAXPROCS a worker process raced
	// with: a worker takes its share of its host's CPUs, ceil(CPUs ÷ the
	// race's workers on that host: all of them for the coordinator's
	// children, those whose agents gave the same host name otherwise),
	// unless GOMAXPROCS is set in its environment. Zero for a run that
	// never raced or a hammer older than it.
	WorkerGoMaxProcs int `json:"worker_gomaxprocs,omitempty"`
	// Incomplete lists why the history may be missing attempts (a worker
	// died, the run timed out). A run with reasons here can never be valid.
	Incomplete []string `json:"incomplete,omitempty"`
	// NoCounter: the run's sector keeps no available counter to read back
	// (a user's service that declares none); conservation is not checked.
	NoCounter bool `json:"no_counter,omitempty"`
	// LedgerUnread says why the sale ledger could not be read back after
	// the race; empty when it was. No check that needs the ledger is made
	// on a run whose ledger was not read.
	LedgerUnread string `json:"ledger_unread,omitempty"`
	// LedgerTruncated is set when the ledger held more rows than hammer
	// read: it stops once the rows hold more distinct sales of the race's
	// own requests than seats (proof of an oversell), or at one row more
	// than both the seats and the attempts (rows that are no sale of the
	// race; they prove nothing). Only its first LedgerTruncated rows were
	// read and saved. Zero when the whole ledger was read.
	LedgerTruncated int `json:"ledger_truncated,omitempty"`
	// Agents are the agents the race's workers ran on, by process number
	// (worker p on Agents[p]); empty when they were child processes of
	// the coordinator.
	Agents []Agent `json:"agents,omitempty"`
	// Outages are the spans during which Redis or PostgreSQL did not
	// answer hammer's health checks, from the go signal until the ledger
	// was read back.
	Outages []Outage `json:"outages,omitempty"`
	// ReplicaLogs is what each replica of a user's service printed during
	// the race, by replica; empty for hammer's own strategies and for
	// replicas hammer did not start.
	ReplicaLogs []ReplicaLog `json:"replica_logs,omitempty"`
}

// Agent is a host a race's worker ran on, and its clock against the
// coordinator's as estimated just before the race: every instant in the
// run's records is on the coordinator's clock, the agent's having been
// moved by Offset, true to within ±Uncertainty.
type Agent struct {
	Index int    `json:"index"`
	Host  string `json:"host"`
	Addr  string `json:"addr"`
	// Offset is the agent's clock minus the coordinator's, in ns.
	Offset      int64 `json:"offset_ns"`
	Uncertainty int64 `json:"offset_uncertainty_ns"`
	// RTT is the round trip of the ping the estimate rests on.
	RTT int64 `json:"rtt_ns"`
	// Drift is how far the offset moved by the end of the race (estimated
	// again then), which adds to the uncertainty of the race's instants.
	Drift int64 `json:"drift_ns"`
}

// Outage is a span during which a server did not answer, or came back as
// another process: from the start of the first check it failed (or the
// last it passed) to the start of the first one it passed again (Unix ns;
// To is zero when it never answered again while hammer watched).
type Outage struct {
	Server string `json:"server"`
	From   int64  `json:"from_ns"`
	To     int64  `json:"to_ns,omitempty"`
	// Err is the first failure, e.g. "dial tcp 127.0.0.1:6379: connect: connection refused".
	Err string `json:"error"`
	// Restarted is set when the server answered again as another process
	// (restarted, or replaced by a failover): what it held in memory, or
	// had acknowledged without flushing, may be gone.
	Restarted bool `json:"restarted,omitempty"`
}

// Manifest lists the runs of one results folder, how they were run and
// what the record files held when they were written.
type Manifest struct {
	Schema string `json:"schema"`
	RunID  string `json:"run_id"`
	// Command is the hammer subcommand that made the folder (run, load, gate).
	Command string `json:"command,omitempty"`
	Seed    uint64 `json:"seed"`
	Stack   string `json:"stack"`
	Env     Env    `json:"env"`
	// StackNotes records facts about the servers that bear on the results,
	// such as PostgreSQL running with fsync off.
	StackNotes []string `json:"stack_notes,omitempty"`
	Runs       []Run    `json:"runs"`
	// Skipped names the scenarios that could not run on this stack, each
	// with the reason.
	Skipped []string `json:"skipped,omitempty"`
	// Files holds, per record file (history.jsonl, ledger.jsonl,
	// sectors.jsonl, faults.jsonl), the number of records written and the
	// SHA-256 of the bytes, so that loading can tell a file cut short or
	// changed after the run. They guard against accidents and edits of the
	// record files, not against someone who rewrites the manifest too.
	Files map[string]FileDigest `json:"files,omitempty"`
}

// Env is what a run ran on, for the report's manifest.
type Env struct {
	Hammer     string `json:"hammer"`             // module version
	Revision   string `json:"revision,omitempty"` // VCS revision hammer was built from
	Go         string `json:"go"`
	Redis      string `json:"redis,omitempty"`
	PostgreSQL string `json:"postgresql,omitempty"`
	// Fsync is PostgreSQL's fsync setting as the server reported it.
	Fsync    string `json:"fsync,omitempty"`
	Cores    int    `json:"cores"`
	PoolSize int    `json:"pool_size"` // PostgreSQL connections per worker process
	// RedisPool is the Redis connections per worker process; zero in
	// folders written before hammer pooled them (one per contender).
	RedisPool int `json:"redis_pool,omitempty"`
	// Target is the target file of a user's service that was raced, and
	// Replicas how many replicas of it; empty for hammer's own strategies.
	Target   string `json:"target,omitempty"`
	Replicas int    `json:"replicas,omitempty"`
}

// FileDigest is what was written into one record file: how many records
// and the SHA-256 of its bytes. The manifest keeps one per record file, so
// that a file cut short or changed after the run shows when the folder is
// loaded.
type FileDigest struct {
	Records int    `json:"records"`
	SHA256  string `json:"sha256"`
}

// ManifestSchema is the version of the Manifest format.
const ManifestSchema = "hammer.manifest/v1"
