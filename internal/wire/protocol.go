// Package wire holds the messages the race coordinator (internal/driver)
// and its worker processes (internal/worker) exchange, and the request ids
// both sides derive from the same numbers: the only code the two sides
// share.
//
// Coordinator and workers talk JSON lines over the worker's stdin and
// stdout: the coordinator sends a Config and later a GoSignal; the worker
// answers with one ready Message, then finished once its last attempt has
// ended and, after the coordinator's wrap (a Control sent when every
// worker has finished), the records it still holds, its histograms and
// done. Records go out once a second while it races or waits, or at once
// under a fault that stops or kills workers.
package wire

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/scenarios"
)

// Config is everything a worker process needs, sent on its stdin so
// that URLs with passwords never show up in a process listing.
type Config struct {
	Run        string         `json:"run"`
	Mode       scenarios.Mode `json:"mode"`
	Proc       int            `json:"proc"`
	Goroutines int            `json:"goroutines"`
	Attempts   int            `json:"attempts"`
	RedisURL   string         `json:"redis_url"`
	PGURL      string         `json:"pg_url"`
	Schema     string         `json:"schema"`
	LockKey    string         `json:"lock_key"`
	Sector     int            `json:"sector"`
	LockTTL    time.Duration  `json:"lock_ttl"`
	LockWait   time.Duration  `json:"lock_wait"`
	PoolSize   int            `json:"pool_size"`
	RedisPool  int            `json:"redis_pool"`
	Seed       uint64         `json:"seed"`

	// RedisPeers are the other nodes of a Redlock (see driver.Options.RedisPeers).
	RedisPeers []string `json:"redis_peers,omitempty"`

	Fault  scenarios.Fault `json:"fault,omitempty"`
	Extend bool            `json:"extend,omitempty"`
	// SoldOutHint turns on the sold-out hint in the modes with a lock.
	SoldOutHint bool `json:"sold_out_hint,omitempty"`
	// Lock names the lock of the modes with a lock; "" (or hammer) is
	// hammer's own, anything else a lock library (internal/locks).
	Lock     scenarios.Lock `json:"lock,omitempty"`
	FenceKey string         `json:"fence_key"`
	// StockKey is the stock counter of a mode that admits through one,
	// empty otherwise.
	StockKey string `json:"stock_key,omitempty"`
	// FaultKey counts lock holders (or sales, without a lock) so that the
	// scheduled ones can be picked out across processes.
	FaultKey string `json:"fault_key"`
	// Schedule lists the holder numbers (1-based, in FaultKey order) the
	// fault strikes.
	Schedule []int64 `json:"schedule,omitempty"`
	// PauseFor is how long a pause, a stop or a network window lasts
	// (net-delay: a third of it as latency, for twice as long).
	PauseFor time.Duration `json:"pause_for,omitempty"`
	// Plant names a deliberately broken variant registered by a test
	// binary; empty in the hammer binary.
	Plant string `json:"plant,omitempty"`
	// Contender names a contender kind of the worker's Kit, and
	// ContenderConfig its settings; empty for the built-in strategies.
	Contender       string          `json:"contender,omitempty"`
	ContenderConfig json.RawMessage `json:"contender_config,omitempty"`
	// Coordinator is the coordinator's IP address as the agent running
	// this worker reached it (agent.Agent.Local): where the worker
	// reaches what the coordinator serves to other hosts, such as the
	// relays of a service's replicas. Empty for a worker the coordinator
	// started itself; a worker that does not know the field ignores it.
	Coordinator string `json:"coordinator,omitempty"`

	// Rate, if positive, switches to the open model: this worker issues
	// Requests requests at Rate per second, the first Offset after the go
	// signal, whatever the goroutines are doing.
	Rate     float64       `json:"rate,omitempty"`
	Requests int           `json:"requests,omitempty"`
	Offset   time.Duration `json:"offset,omitempty"`

	// Realtime asks for a real-time start (package realtime) where the
	// worker may have one; closed model only.
	Realtime bool `json:"realtime,omitempty"`
	// HostWorkers is how many of the race's workers share this worker's
	// host: it takes that share of the host's CPUs.
	HostWorkers int `json:"host_workers,omitempty"`
}

// GoSignal releases a worker's contenders at a wall-clock instant shared by
// every process on the host, so that processes start together even though
// the coordinator writes to them one after the other.
type GoSignal struct {
	At int64 `json:"go_ns"`
}

// Message is one line a worker writes to the coordinator.
type Message struct {
	Ready bool `json:"ready,omitempty"`
	// Realtime, with Ready, announces that the worker's start will be a
	// real-time burst (package realtime); with Done, it says whether it
	// was.
	Realtime bool `json:"realtime,omitempty"`
	// GoMaxProcs, with Ready, is the GOMAXPROCS the worker races with.
	GoMaxProcs int              `json:"gomaxprocs,omitempty"`
	Attempt    *history.Attempt `json:"attempt,omitempty"`
	// Finished says that the worker's last attempt has ended; it keeps
	// the records it has not sent yet, its histograms and its connections
	// until the coordinator's wrap (see worker.Main's finish line).
	Finished bool `json:"finished,omitempty"`
	Done     bool `json:"done,omitempty"`
	// Fatal is set when the worker could not start (bad URL, server down).
	Fatal string `json:"fatal,omitempty"`
	// Strike asks the coordinator to inject a fault on this contender; the
	// contender waits for a resume (or is killed).
	Strike *Strike `json:"strike,omitempty"`
	// Event reports a fault the worker injected itself.
	Event *history.FaultEvent `json:"event,omitempty"`
	// Begin says at once that the worker begins to inject a fault itself
	// (its Start set, End zero); its Event follows. Only the live view
	// reads it.
	Begin *history.FaultEvent `json:"begin,omitempty"`
	// Histograms ships the worker's latency histograms, after its last
	// attempt.
	Histograms []latency.Encoded `json:"histograms,omitempty"`
	// Shipped answers a control Ship: every record the worker held was
	// sent before it.
	Shipped bool `json:"shipped,omitempty"`
}

// Strike is a scheduled contender at its fault point.
type Strike struct {
	Key       string `json:"key"` // AttemptKey, to resume it
	Proc      int    `json:"proc"`
	Goroutine int    `json:"goroutine"`
	RequestID string `json:"request_id"`
}

// Control is a line the coordinator writes to a worker after the go signal.
type Control struct {
	// Resume names the attempt (AttemptKey) that may go on.
	Resume string `json:"resume,omitempty"`
	// Ship asks the worker to send every record it holds now: the race is
	// being stopped, and the worker will be killed.
	Ship bool `json:"ship,omitempty"`
	// Wrap tells a finished worker that every worker has finished: it may
	// send the rest and close.
	Wrap bool `json:"wrap,omitempty"`
}

// AttemptKey identifies one copy of one attempt.
func AttemptKey(a *history.Attempt) string { return fmt.Sprintf("%s#%d", a.RequestID, a.Try) }

// Shift moves every instant m carries by d nanoseconds: from a worker's
// host's clock onto the coordinator's, or (in a test playing a host with
// another clock) the other way.
func (m *Message) Shift(d int64) {
	if d == 0 {
		return
	}
	if a := m.Attempt; a != nil {
		for _, t := range []*int64{&a.Intended, &a.Invoke, &a.LockAcquired, &a.LockSent, &a.LockReleasing, &a.LockReleased,
			&a.DBStart, &a.DBEnd, &a.Complete, &a.ReadAt, &a.Extended, &a.ExtendFailed} {
			if *t != 0 {
				*t += d
			}
		}
	}
	for _, e := range []*history.FaultEvent{m.Event, m.Begin} {
		if e == nil {
			continue
		}
		for _, t := range []*int64{&e.Start, &e.End} {
			if *t != 0 {
				*t += d
			}
		}
	}
}

// Copied is m with its own copies of the records it points to, which can
// be shifted without touching the sender's.
func (m Message) Copied() Message {
	if m.Attempt != nil {
		a := *m.Attempt
		m.Attempt = &a
	}
	if m.Event != nil {
		e := *m.Event
		m.Event = &e
	}
	if m.Begin != nil {
		e := *m.Begin
		m.Begin = &e
	}
	return m
}

// OpenRequestID names request n of process p in the open model.
func OpenRequestID(p, n int) string { return fmt.Sprintf("p%d-r%d", p, n) }

// RequestID names attempt k of goroutine g in process p. Ids are
// deterministic so that the coordinator can name the attempts a dead worker
// never reported.
func RequestID(p, g, k int) string { return fmt.Sprintf("p%d-g%d-a%d", p, g, k) }
