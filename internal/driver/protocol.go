// Package driver runs one race: a coordinator starts worker processes (the
// hammer binary re-executed as a hidden worker), waits until every worker is
// connected and warmed up, releases all contenders with one go signal,
// collects the attempt records they stream back, and reads the ledger.
//
// Coordinator and workers talk JSON lines over the worker's stdin and
// stdout: the coordinator sends a workerConfig and later a goSignal; the
// worker answers with one ready message, one message per attempt, and done.
package driver

import (
	"fmt"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// workerConfig is everything a worker process needs, sent on its stdin so
// that URLs with passwords never show up in a process listing.
type workerConfig struct {
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
	Seed       uint64         `json:"seed"`
}

// goSignal releases a worker's contenders at a wall-clock instant shared by
// every process on the host, so that processes start together even though
// the coordinator writes to them one after the other.
type goSignal struct {
	At int64 `json:"go_ns"`
}

// message is one line a worker writes to the coordinator.
type message struct {
	Ready   bool             `json:"ready,omitempty"`
	Attempt *history.Attempt `json:"attempt,omitempty"`
	Done    bool             `json:"done,omitempty"`
	// Fatal is set when the worker could not start (bad URL, server down).
	Fatal string `json:"fatal,omitempty"`
}

// RequestID names attempt k of goroutine g in process p. Ids are
// deterministic so that the coordinator can name the attempts a dead worker
// never reported.
func RequestID(p, g, k int) string { return fmt.Sprintf("p%d-g%d-a%d", p, g, k) }
