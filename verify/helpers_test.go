package verify

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hammer-load/hammer/history"
)

// race builds a synthetic run: attempts and sale rows for one sector,
// assembled with the methods below.
type race struct {
	attempts []history.Attempt
	sales    []history.Sale
}

// reqID names the n-th contender the way the driver does: process, goroutine.
func reqID(n int) string { return fmt.Sprintf("p%d-g%d", n%4, n/4) }

// sold adds contenders told they got seats first..last, each with its row.
func (r *race) sold(first, last int) *race {
	for seat := first; seat <= last; seat++ {
		id := reqID(len(r.attempts))
		r.attempt(id, history.Sold, seat).row(id, seat)
	}
	return r
}

// refused adds n contenders that got outcome o and no row.
func (r *race) refused(n int, o history.Outcome) *race {
	for range n {
		r.attempt(reqID(len(r.attempts)), o, 0)
	}
	return r
}

// attempt adds one attempt.
func (r *race) attempt(id string, o history.Outcome, seat int) *race {
	r.attempts = append(r.attempts, history.Attempt{
		Run: "r", Mode: "none", RequestID: id, Outcome: o, Seat: seat,
	})
	return r
}

// row adds one sale row.
func (r *race) row(id string, seat int) *race {
	r.sales = append(r.sales, history.Sale{Run: "r", Sector: 1, Seat: seat, RequestID: id, Worker: "w"})
	return r
}

// input turns the race into an Input for a sector of the given capacity
// and final available count.
func (r *race) input(seats, capacity, available int) Input {
	return Input{
		Seats:    seats,
		Attempts: r.attempts,
		Sales:    r.sales,
		Sector:   &history.Sector{Run: "r", ID: 1, Capacity: capacity, Available: available},
	}
}

// withoutSector drops the sector row from an Input.
func withoutSector(in Input) Input {
	in.Sector = nil
	return in
}

// incomplete marks an Input's history as incomplete for the given reasons.
func incomplete(in Input, reasons ...string) Input {
	in.Incomplete = reasons
	return in
}

// with changes an Input in place and returns it, for one-line cases.
func (in Input) with(change func(*Input)) Input {
	change(&in)
	return in
}

// locked adds a lock holder that held the lock from acquired to end (ms
// after the go signal, which is at 0) and sold seat (0: found it sold out).
func (r *race) locked(id string, proc int, acquired, end int64, seat int) *race {
	const ms = int64(1_000_000)
	a := history.Attempt{
		Run: "r", Mode: "lock-only", Proc: proc, RequestID: id, Outcome: history.SoldOut,
		Invoke: acquired * ms, LockAcquired: acquired * ms, DBStart: acquired * ms, DBEnd: end * ms,
		LockReleased: (end + 1) * ms, Complete: (end + 1) * ms,
	}
	if seat > 0 {
		a.Outcome, a.Seat = history.Sold, seat
		r.sales = append(r.sales, history.Sale{Run: "r", Sector: 1, Seat: seat, RequestID: id, Worker: "w", SoldAt: end * ms})
	}
	r.attempts = append(r.attempts, a)
	return r
}

// lockOnly makes an input a lock-only run with a 150 ms TTL.
func lockOnly(in *Input) { in.Mode, in.LockTTL = "lock-only", 150_000_000 }

// paused records a pause fault on request id from fromMs to toMs.
func paused(id string, fromMs, toMs int64) func(*Input) {
	return func(in *Input) {
		in.Fault = "pause"
		in.Faults = append(in.Faults, history.FaultEvent{Fault: "pause", RequestID: id,
			Start: fromMs * 1_000_000, End: toMs * 1_000_000, Detail: "paused"})
	}
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// oversold is the classic result of mode none: 103 contenders were told they
// got a seat, seat 7 went three times and seat 42 twice, and the counter
// reached 0 while the ledger kept growing.
func oversold() *race {
	r := new(race).sold(1, 100).refused(200, history.SoldOut)
	for _, seat := range []int{7, 7, 42} {
		id := reqID(len(r.attempts))
		r.attempt(id, history.Sold, seat).row(id, seat)
	}
	return r
}

// golden compares v, as indented JSON, with testdata/<name>.golden, or
// rewrites the file when -update is set.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update to accept):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
