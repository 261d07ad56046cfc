package report

import (
	"slices"
	"testing"

	"github.com/hammer-load/hammer/history"
)

func TestConditionMismatches(t *testing.T) {
	run := func(name string, edit func(*RunSummary)) RunSummary {
		r := RunSummary{Name: name, Procs: 4, Goroutines: 250, Contenders: 1000, Seats: 100, Lock: "hammer",
			Model: "closed", RealtimeWorkers: 4, WorkerGoMaxProcs: 1}
		if edit != nil {
			edit(&r)
		}
		return r
	}
	folder := func(edit func(*history.Env), runs ...RunSummary) Summary {
		s := Summary{Stack: "local", Env: history.Env{Cores: 2, PoolSize: 16, RedisPool: 16, Fsync: "off", Redis: "7.0.15", PostgreSQL: "15.18"}, Runs: runs}
		if edit != nil {
			edit(&s.Env)
		}
		return s
	}
	tests := []struct {
		name string
		a, b Summary
		want []string
	}{
		{name: "alike", a: folder(nil, run("x", nil)), b: folder(nil, run("x", nil))},
		{name: "sizes", a: folder(nil, run("x", nil)),
			b: folder(nil, run("x", func(r *RunSummary) {
				r.Procs, r.Goroutines, r.Contenders, r.Seats, r.RealtimeWorkers = 2, 50, 100, 20, 2
			})),
			want: []string{"1 run raced under different conditions in A and B, so their latencies may not be comparable: " +
				"x (procs × goroutines 4 × 250 → 2 × 50; contenders 1000 → 100; seats 100 → 20)"}},
		{name: "start and GOMAXPROCS", a: folder(nil, run("x", nil)),
			b: folder(nil, run("x", func(r *RunSummary) { r.RealtimeWorkers, r.WorkerGoMaxProcs = 0, 2 })),
			want: []string{"1 run raced under different conditions in A and B, so their latencies may not be comparable: " +
				"x (real-time start every worker → no worker; worker GOMAXPROCS 1 → 2)"}},
		{name: "some workers in real time", a: folder(nil, run("x", nil)),
			b: folder(nil, run("x", func(r *RunSummary) { r.RealtimeWorkers = 3 })),
			want: []string{"1 run raced under different conditions in A and B, so their latencies may not be comparable: " +
				"x (real-time start every worker → 3 of 4 workers)"}},
		{name: "GOMAXPROCS and start unrecorded in A", a: folder(nil, run("x", func(r *RunSummary) { r.WorkerGoMaxProcs, r.RealtimeWorkers = 0, 0 })),
			b: folder(nil, run("x", func(r *RunSummary) { r.WorkerGoMaxProcs = 2 }))},
		{name: "lock unrecorded in A", a: folder(nil, run("x", func(r *RunSummary) { r.Lock = "" })), b: folder(nil, run("x", nil))},
		{name: "another service", a: folder(nil, run("x", nil)),
			b: folder(func(e *history.Env) { e.Target, e.Replicas, e.PoolSize = "examples/go/target.json", 3, 0 }, run("x", nil)),
			want: []string{"A and B raced on different machines or servers, so their latencies may not be comparable: " +
				"target hammer's own strategies → examples/go/target.json × 3"}},
		{name: "replicas", a: folder(func(e *history.Env) { e.Target, e.Replicas, e.PoolSize = "t.json", 2, 4 }, run("x", nil)),
			b: folder(func(e *history.Env) { e.Target, e.Replicas, e.PoolSize = "t.json", 3, 8 }, run("x", nil)),
			want: []string{"A and B raced on different machines or servers, so their latencies may not be comparable: " +
				"target t.json × 2 → t.json × 3"}},
		{name: "open model and lock", a: folder(nil, run("x", nil)),
			b: folder(nil, run("x", func(r *RunSummary) { r.Model, r.Rate, r.Lock = "open", 500, "redsync" })),
			want: []string{"1 run raced under different conditions in A and B, so their latencies may not be comparable: " +
				"x (lock hammer → redsync; model closed → open at 500/s)"}},
		{name: "machine and servers", a: folder(nil, run("x", nil)),
			b: folder(func(e *history.Env) { e.Cores, e.Fsync, e.PoolSize = 4, "on", 8 }, run("x", nil)),
			want: []string{"A and B raced on different machines or servers, so their latencies may not be comparable: " +
				"cores 2 → 4; PostgreSQL connections per worker 16 → 8; PostgreSQL fsync off → on"}},
		{name: "unrecorded fields", a: folder(func(e *history.Env) { e.Cores, e.RedisPool, e.Fsync, e.Redis, e.PostgreSQL = 0, 0, "", "", "" }, run("x", nil)),
			b: folder(func(e *history.Env) { e.Cores, e.RedisPool = 8, 64 }, run("x", nil))},
		{name: "capped", a: folder(nil, run("a", nil), run("b", nil), run("c", nil), run("d", nil)),
			b: folder(nil, run("a", func(r *RunSummary) { r.Seats = 1 }), run("b", func(r *RunSummary) { r.Seats = 1 }),
				run("c", func(r *RunSummary) { r.Seats = 1 }), run("d", func(r *RunSummary) { r.Seats = 1 })),
			want: []string{"4 runs raced under different conditions in A and B, so their latencies may not be comparable: " +
				"a (seats 100 → 1), b (seats 100 → 1), c (seats 100 → 1) and 1 more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mismatches(tt.a, tt.b); !slices.Equal(got, tt.want) {
				t.Errorf("mismatches =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
