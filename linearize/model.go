package linearize

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/hammer-load/hammer/history"
)

// kind is what an operation of the model does.
type kind int

const (
	// buy is one attempt: a request asking for a seat.
	buy kind = iota
	// soldOutRead is the earliest "sold out" answer, read as "this seat
	// is taken": one copy of it in every seat's partition.
	soldOutRead
	// ledgerRead is the sale ledger read back after the race: who holds
	// one seat.
	ledgerRead
	// opens puts one seat on sale before the race, free; it changes
	// nothing, but gives every seat's partition a first step, from which
	// porcupine's drawing can show what cannot follow.
	opens
)

// call is what an operation asked.
type call struct {
	Kind kind
	// Request is the request id of a buy or of the sold-out answer.
	Request string
	// Seat is the seat a read reads.
	Seat int
}

// answer is what an operation was told, or for a read what it found.
type answer struct {
	Outcome history.Outcome
	// Seat is the seat a buy was told it got or, for an attempt without a
	// known outcome (or told it got a seat without saying which), the seat
	// the ledger holds for its request; 0 for none.
	Seat int
	// FromLedger tells that Seat was taken from the ledger, not from the
	// answer.
	FromLedger bool
	// Holders are the requests the ledger holds a seat for, in ledger
	// order (ledgerRead).
	Holders []string
}

// noSeat is the partition key of the buys that take no seat.
const noSeat = -1 << 62

// key is the partition an operation belongs to: its seat, or noSeat.
func key(c call, a answer) int {
	switch {
	case c.Kind != buy:
		return c.Seat
	case a.Outcome == history.Sold, a.Outcome.Indeterminate() && a.Seat != 0:
		return a.Seat
	}
	return noSeat
}

// free is the holder of a seat nobody holds; any other holder is the
// request id holding it.
const free = ""

// step is the sequential specification of one seat of a sector of seats
// seats: the holders the seat may have after the operation (n of them, at
// most two), none when the operation cannot happen while holder holds it.
// Seats are numbered 1..seats, taken at most once and never given back.
func step(seats int, holder string, c call, a answer) (next [2]string, n int) {
	keep := func() ([2]string, int) { return [2]string{holder}, 1 }
	switch c.Kind {
	case opens:
		return keep()
	case soldOutRead:
		if holder == free {
			return next, 0 // sold out while this seat was free
		}
		return keep()
	case ledgerRead:
		switch {
		case len(a.Holders) == 0 && holder == free, len(a.Holders) == 1 && a.Holders[0] == holder:
			return keep()
		}
		return next, 0
	}
	exists := a.Seat >= 1 && a.Seat <= seats
	switch {
	case a.Outcome == history.Sold:
		// A request told again the seat it already holds (a retried
		// copy answered by an idempotent service) takes nothing new.
		if exists && (holder == free || holder == c.Request) {
			return [2]string{c.Request}, 1
		}
		return next, 0
	case a.Outcome.Indeterminate() && exists && holder == free:
		// It may or may not have happened.
		return [2]string{free, c.Request}, 2
	}
	return keep() // no seat taken: sold out, refused, or did not happen
}

// states is the set of holders a seat may have after the operations so
// far: more than one when an attempt without a known outcome may or may
// not have taken it. Sorted (free first), never changed once made.
type states struct{ holders []string }

// after applies step to every holder the seat may have; ok is false when
// the operation can happen in none of them. A step that changes nothing
// returns s itself, so the common steps allocate nothing.
func (s *states) after(seats int, c call, a answer) (next *states, ok bool) {
	var buf [8]string
	out := buf[:0]
	for _, h := range s.holders {
		nx, n := step(seats, h, c, a)
		out = append(out, nx[:n]...)
	}
	if len(out) == 0 {
		return nil, false
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if slices.Equal(out, s.holders) {
		return s, true
	}
	return &states{holders: slices.Clone(out)}, true
}

// newModel is the model of a sector of seats seats; partitioned splits a
// history into one partition per seat (and chunks of the buys that take
// no seat), which porcupine checks each on its own. Its state is a seat's
// states: the nondeterminism of an unknown outcome is kept as a set, the
// way porcupine's NondeterministicModel.ToModel does, without its
// allocations on every step.
func newModel(seats int, partitioned bool) porcupine.Model {
	initial := &states{holders: []string{free}}
	m := porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, in, out any) (bool, any) {
			next, ok := state.(*states).after(seats, in.(call), out.(answer))
			return ok, next
		},
		Equal: func(a, b any) bool { return slices.Equal(a.(*states).holders, b.(*states).holders) },
		Hash: func(state any) uint64 {
			h := fnv.New64a()
			for _, x := range state.(*states).holders {
				_, _ = h.Write([]byte(x))
				_, _ = h.Write([]byte{0})
			}
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string { return describe(seats, in.(call), out.(answer)) },
		DescribeState: func(state any) string {
			var parts []string
			for _, h := range state.(*states).holders {
				if h == free {
					parts = append(parts, "free")
				} else {
					parts = append(parts, "held by "+h)
				}
			}
			return strings.Join(parts, " or ")
		},
		DescribeOperationMetadata: func(m any) string {
			if m == nil {
				return ""
			}
			return m.(string)
		},
	}
	if partitioned {
		m.Partition = partition
	}
	return m
}

// describe renders one operation of a sector of seats seats for the
// visualization.
func describe(seats int, c call, a answer) string {
	switch c.Kind {
	case opens:
		if c.Seat < 1 || c.Seat > seats {
			return fmt.Sprintf("seat %d does not exist", c.Seat)
		}
		return fmt.Sprintf("seat %d on sale", c.Seat)
	case soldOutRead:
		return fmt.Sprintf("%s: sold out, so seat %d is taken", c.Request, c.Seat)
	case ledgerRead:
		if len(a.Holders) == 0 {
			return fmt.Sprintf("ledger: seat %d free", c.Seat)
		}
		return fmt.Sprintf("ledger: seat %d held by %s", c.Seat, andList(capped(a.Holders)))
	}
	switch {
	case a.Outcome == history.Sold && a.FromLedger:
		return fmt.Sprintf("%s: sold (seat %d, from the ledger)", c.Request, a.Seat)
	case a.Outcome == history.Sold:
		return fmt.Sprintf("%s: sold seat %d", c.Request, a.Seat)
	case a.Outcome.Indeterminate() && a.Seat != 0:
		return fmt.Sprintf("%s: %s, may have taken seat %d", c.Request, a.Outcome, a.Seat)
	case a.Outcome.Indeterminate():
		return fmt.Sprintf("%s: %s, took no seat (none in the ledger)", c.Request, a.Outcome)
	}
	return fmt.Sprintf("%s: %s", c.Request, a.Outcome)
}

// partition splits a history into one partition per seat, in seat order,
// then the buys that take no seat in chunks of noSeatChunk: those change
// no state, so any split of them is as good, and small ones keep
// porcupine's per-partition memory small.
func partition(ops []porcupine.Operation) [][]porcupine.Operation {
	bySeat := map[int][]porcupine.Operation{}
	var seats []int
	var rest []porcupine.Operation
	for _, op := range ops {
		k := key(op.Input.(call), op.Output.(answer))
		if k == noSeat {
			rest = append(rest, op)
			continue
		}
		if _, ok := bySeat[k]; !ok {
			seats = append(seats, k)
		}
		bySeat[k] = append(bySeat[k], op)
	}
	slices.Sort(seats)
	out := make([][]porcupine.Operation, 0, len(seats)+len(rest)/noSeatChunk+1)
	for _, s := range seats {
		out = append(out, bySeat[s])
	}
	for len(rest) > 0 {
		n := min(noSeatChunk, len(rest))
		out = append(out, rest[:n])
		rest = rest[n:]
	}
	return out
}

// noSeatChunk is how many seatless buys one partition holds.
const noSeatChunk = 256
