package bench

import (
	"fmt"
	"strings"
)

// each is f of every round.
func each(rounds []Round, f func(Round) Value) []Value {
	vs := make([]Value, len(rounds))
	for i, r := range rounds {
		vs[i] = f(r)
	}
	return vs
}

// FigureRows are the figures with their goals, in the order of the issue.
func FigureRows(rounds []Round) []Row {
	sk := skewSizes()
	rows := []Row{
		{Figure: "update-only throughput, hammer ÷ pgbench (same transaction)", Anchor: "pgbench tps",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.HammerTPS, r.PgbenchTPS) }),
			Format: ratio, Goal: Goal{Op: AtLeast, Limit: 0.95, Text: "≥ 0.95 ×"}},
		{Figure: "race wall update-only, hammer ÷ minimal Go", Anchor: "minimal Go",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.UpdateOnlyWall, r.MinimalWall) }),
			Format: ratio, Goal: Goal{Op: AtMost, Limit: 1.1, Text: "≤ 1.1 ×"}},
		{Figure: fmt.Sprintf("race wall update-only in one process (1 × %d, --pool %d), hammer ÷ minimal Go", raceContenders, raceConns),
			Anchor: "minimal Go",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.OneProcWall, r.MinimalWall) }),
			Format: ratio, Goal: Goal{Text: "(info)"}},
		{Figure: fmt.Sprintf("race wall update-only, hammer ÷ minimal Go in %d processes (%d × %d, pool %d each)", raceProcs, raceProcs, raceGoroutines, racePool),
			Anchor: "minimal Go, hammer's shape",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.UpdateOnlyWall, r.MinimalProcsWall) }),
			Format: ratio, Goal: Goal{Text: "(info)"}},
		{Figure: "race wall lock-plus-update ÷ update-only (hammer)", Anchor: "-",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.LockPlusUpdateWall, r.UpdateOnlyWall) }),
			Format: ratio, Goal: Goal{Op: AtMost, Limit: 1.5, Text: "≤ 1.5 ×"}},
		{Figure: "redsync wall ÷ hammer lock-plus-update wall", Anchor: "redsync (defaults)",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.RedsyncWall, r.LockPlusUpdateWall) }),
			Format: ratio, Goal: Goal{Op: AtLeast, Limit: 3, Text: "≥ 3 ×"}},
		{Figure: "bsm/redislock wall ÷ hammer lock-plus-update wall", Anchor: "bsm/redislock (linear 10 ms, 1 min wait)",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.RedislockWall, r.LockPlusUpdateWall) }),
			Format: ratio, Goal: Goal{Text: "(info)"}},
	}
	skewGoals := [skewCount]Goal{{Text: "(info)"}, {Op: AtMost, Limit: 1, Text: "≤ 1 ms"}, {Op: AtMost, Limit: 5, Text: "≤ 5 ms"}}
	for i, g := range skewGoals {
		rows = append(rows, Row{Figure: "start skew, hammer update-only " + sk[i].String(), Anchor: "-",
			Rounds: each(rounds, func(r Round) Value { return r.Skew[i] }), Format: millis, Goal: g})
	}
	skewRatio := func(i int, anchor string, f func(Round) Value) Row {
		return Row{Figure: "start skew " + sk[i].String() + ", hammer ÷ minimal Go " + anchor, Anchor: "minimal Go's start skew",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.Skew[i], f(r)) }), Format: ratio, Goal: Goal{Text: "(info)"}}
	}
	rows = append(rows,
		skewRatio(1, fmt.Sprintf("(1 × %d, pool %d)", smallContenders(), raceConns), func(r Round) Value { return r.MinimalSmallSkew }),
		skewRatio(2, fmt.Sprintf("(1 × %d, pool %d)", raceContenders, raceConns), func(r Round) Value { return r.MinimalSkew }),
		skewRatio(2, fmt.Sprintf("in %d processes", raceProcs), func(r Round) Value { return r.MinimalProcsSkew }))
	rows = append(rows,
		sizesRow(rounds, sk, "peak_in_flight", func(r Round) [skewCount]Value { return r.PeakInFlight }, nil),
		sizesRow(rounds, sk, "workers in a real-time start", func(r Round) [skewCount]Value { return r.Realtime },
			func(s size) string { return fmt.Sprintf(" of %d", s.procs) }),
		flashExitRow(rounds),
		Row{Figure: fmt.Sprintf("%dk contenders: peak RSS, all hammer processes", flashContenders/1000), Anchor: "-",
			Rounds: each(rounds, func(r Round) Value { return r.FlashRSS }), Format: mib,
			Goal: Goal{Op: AtMost, Limit: 1 << 30, Text: "≤ 1 GiB"}},
		Row{Figure: fmt.Sprintf("%dk contenders: start skew", flashContenders/1000), Anchor: "-",
			Rounds: each(rounds, func(r Round) Value { return r.FlashSkew }), Format: millis,
			Goal: Goal{Op: AtMost, Limit: 50, Text: "≤ 50 ms"}},
		Row{Figure: fmt.Sprintf("%dk contenders: start skew, hammer ÷ minimal Go start of %d goroutines", flashContenders/1000, flashContenders),
			Anchor: "minimal Go's start skew",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.FlashSkew, r.GoStartSkew) }),
			Format: ratio, Goal: Goal{Op: AtMost, Limit: 1.5, Text: "≤ 1.5 ×"}},
		Row{Figure: fmt.Sprintf("%dk contenders: peak in flight", flashContenders/1000), Anchor: "-",
			Rounds: each(rounds, func(r Round) Value { return r.FlashPeak }), Format: count,
			Goal: Goal{Op: AtLeast, Limit: flashContenders, Text: fmt.Sprintf("≥ %d", flashContenders)}},
		Row{Figure: "lock handoff p50 (phase \"handoff\")", Anchor: "-",
			Rounds: each(rounds, func(r Round) Value { return r.HandoffP50 }), Format: millis,
			Goal: Goal{Op: AtMost, Limit: 0.3, Text: "≤ 0.3 ms"}},
		Row{Figure: "lock commands/s, hammer lock-plus-update ÷ redis-benchmark SET NX PX", Anchor: "redis-benchmark",
			Rounds: each(rounds, func(r Round) Value { return Ratio(r.LockOpsPerSec, r.SetRPS) }),
			Format: ratio, Goal: Goal{Text: "(info)"}},
	)
	return rows
}

// sizesRow prints figure at every skew size in one cell per round (n/a
// where hammer did not write it), each value followed by what of adds for
// its size (of may be nil).
func sizesRow(rounds []Round, sk [skewCount]size, figure string, values func(Round) [skewCount]Value, of func(size) string) Row {
	var names []string
	for _, s := range sk {
		names = append(names, s.String())
	}
	row := Row{Figure: figure + " " + strings.Join(names, " / "), Anchor: "-", Format: count, Goal: Goal{Text: "(info)"}}
	for _, r := range rounds {
		var cells []string
		for i, v := range values(r) {
			cell := row.show(v)
			if of != nil && !v.Missing() {
				cell += of(sk[i])
			}
			cells = append(cells, cell)
		}
		row.Rounds = append(row.Rounds, NA())
		row.Text = append(row.Text, strings.Join(cells, " / "))
	}
	return row
}

// flashExitRow is the flash sale's exit code with its verdict; the goal
// is exit 0 in every round.
func flashExitRow(rounds []Round) Row {
	row := Row{Figure: fmt.Sprintf("%dk contenders (%s lock-plus-update): exit, verdict", flashContenders/1000, size{flashProcs, flashGoroutines}),
		Anchor: "-", Format: count, Goal: Goal{Op: Every, Limit: 0, Text: "exit 0"}}
	for _, r := range rounds {
		row.Rounds = append(row.Rounds, r.FlashExit)
		text := row.show(r.FlashExit)
		if r.FlashVerdict != "" {
			text += " " + r.FlashVerdict
		}
		row.Text = append(row.Text, text)
	}
	return row
}

// MeasurementRows are the numbers the figures are made of.
func MeasurementRows(rounds []Round) []Row {
	wall := func(figure, how string, f func(Round) Value) Row {
		return Row{Figure: figure, Anchor: how, Rounds: each(rounds, f), Format: millis}
	}
	pairs := fmt.Sprintf(", median of %d", wallPairs)
	return []Row{
		{Figure: "pgbench", Anchor: "tps, -c 16 -M prepared, same transaction", Format: perSec,
			Rounds: each(rounds, func(r Round) Value { return r.PgbenchTPS })},
		{Figure: "hammer update-only throughput", Anchor: "sold ÷ elapsed_ms, 1 × 16, --pool 16, big sector", Format: perSec,
			Rounds: each(rounds, func(r Round) Value { return r.HammerTPS })},
		wall("minimal Go race", "wall, 1000 goroutines, pgxpool 32"+pairs, func(r Round) Value { return r.MinimalWall }),
		wall(fmt.Sprintf("minimal Go race, %d processes", raceProcs), fmt.Sprintf("wall, %d × %d goroutines, pgxpool %d each", raceProcs, raceGoroutines, racePool),
			func(r Round) Value { return r.MinimalProcsWall }),
		wall("minimal Go race, start skew", "latest − earliest start, 1000 goroutines, pgxpool 32"+pairs, func(r Round) Value { return r.MinimalSkew }),
		wall(fmt.Sprintf("minimal Go race, %d processes, start skew", raceProcs), fmt.Sprintf("latest − earliest start, %d × %d goroutines", raceProcs, raceGoroutines),
			func(r Round) Value { return r.MinimalProcsSkew }),
		wall(fmt.Sprintf("minimal Go race of %d, start skew", smallContenders()), fmt.Sprintf("latest − earliest start, %d goroutines, pgxpool %d", smallContenders(), raceConns),
			func(r Round) Value { return r.MinimalSmallSkew }),
		wall("hammer update-only race", "elapsed_ms, 4 × 250, --pool 8"+pairs, func(r Round) Value { return r.UpdateOnlyWall }),
		wall("hammer update-only race, one process", fmt.Sprintf("elapsed_ms, 1 × %d, --pool %d", raceContenders, raceConns),
			func(r Round) Value { return r.OneProcWall }),
		wall("hammer lock-plus-update race", "elapsed_ms, 4 × 250, --pool 8", func(r Round) Value { return r.LockPlusUpdateWall }),
		wall("redsync race", "wall, 1000 goroutines, pgxpool 32", func(r Round) Value { return r.RedsyncWall }),
		wall("bsm/redislock race", "wall, 1000 goroutines, pgxpool 32", func(r Round) Value { return r.RedislockWall }),
		{Figure: "redsync gave up", Anchor: "contenders out of its 32 tries", Format: count,
			Rounds: each(rounds, func(r Round) Value { return r.RedsyncGaveUp })},
		{Figure: "bsm/redislock gave up", Anchor: "contenders past the 1 min lock wait", Format: count,
			Rounds: each(rounds, func(r Round) Value { return r.RedislockGaveUp })},
		wall(fmt.Sprintf("minimal Go start of %d goroutines", flashContenders), "latest − earliest start, one process, one channel close",
			func(r Round) Value { return r.GoStartSkew }),
		{Figure: fmt.Sprintf("%dk contenders", flashContenders/1000), Anchor: "hammer processes sampled", Format: count,
			Rounds: each(rounds, func(r Round) Value {
				if r.FlashRSS.Missing() {
					return NA()
				}
				return Known(float64(r.FlashProcs))
			})},
		{Figure: "redis-benchmark SET key token NX PX ttl", Anchor: "rps, -c 50, one key", Format: perSec,
			Rounds: each(rounds, func(r Round) Value { return r.SetRPS })},
		{Figure: "redis-benchmark EVALSHA release", Anchor: "rps, -c 50, not the holder's token", Format: perSec,
			Rounds: each(rounds, func(r Round) Value { return r.ReleaseRPS })},
		{Figure: "hammer lock-plus-update lock commands", Anchor: "SET + EVALSHA + EVAL calls ÷ elapsed_ms", Format: perSec,
			Rounds: each(rounds, func(r Round) Value { return r.LockOpsPerSec })},
	}
}
