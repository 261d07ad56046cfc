package report

import (
	"fmt"
	"strings"

	"github.com/hammer-load/hammer/history"
)

// difference is one condition that differs between A and B: what it is,
// and its value in each.
type difference struct{ what, a, b string }

// differences lists the conditions whose values differ, as
// "what a → b", joined by "; ".
func differences(ds []difference) string {
	var parts []string
	for _, d := range ds {
		if d.a != d.b {
			parts = append(parts, fmt.Sprintf("%s %s → %s", d.what, d.a, d.b))
		}
	}
	return strings.Join(parts, "; ")
}

// setupMismatch says how the machine and the servers of A and B differ
// (cores, pools, versions, fsync), or "" when they are alike. A field a
// folder does not record (an older hammer's) is not compared.
func setupMismatch(a, b Summary) string {
	ea, eb := a.Env, b.Env
	ds := []difference{{"stack", a.Stack, b.Stack}, {"target", target(ea), target(eb)}}
	if ea.Cores > 0 && eb.Cores > 0 {
		ds = append(ds, difference{"cores", fmt.Sprint(ea.Cores), fmt.Sprint(eb.Cores)})
	}
	if ea.Target == "" && eb.Target == "" {
		// A user's service keeps its own connections: hammer's pool
		// sizes say nothing about it.
		ds = append(ds, difference{"PostgreSQL connections per worker", fmt.Sprint(ea.PoolSize), fmt.Sprint(eb.PoolSize)})
	}
	if ea.RedisPool > 0 && eb.RedisPool > 0 {
		ds = append(ds, difference{"Redis connections per worker", fmt.Sprint(ea.RedisPool), fmt.Sprint(eb.RedisPool)})
	}
	for _, d := range []difference{{"PostgreSQL fsync", ea.Fsync, eb.Fsync}, {"Redis", ea.Redis, eb.Redis}, {"PostgreSQL", ea.PostgreSQL, eb.PostgreSQL}} {
		if d.a != "" && d.b != "" {
			ds = append(ds, d)
		}
	}
	if s := differences(ds); s != "" {
		return "A and B raced on different machines or servers, so their latencies may not be comparable: " + s
	}
	return ""
}

// runMismatch says how the conditions of one run differ between A and B
// (sizes, lock, model, the start), or "" when they are alike.
func runMismatch(c RunChange) string {
	a, b := c.A, c.B
	ds := []difference{
		{"procs × goroutines", fmt.Sprintf("%d × %d", a.Procs, a.Goroutines), fmt.Sprintf("%d × %d", b.Procs, b.Goroutines)},
		{"contenders", fmt.Sprint(a.Contenders), fmt.Sprint(b.Contenders)},
		{"seats", fmt.Sprint(a.Seats), fmt.Sprint(b.Seats)},
	}
	if a.Lock != "" && b.Lock != "" { // folders before the lock libraries record none
		ds = append(ds, difference{"lock", string(a.Lock), string(b.Lock)})
	}
	ds = append(ds, difference{"model", model(a), model(b)})
	// realtime_workers reads 0 both for no real-time start and in a
	// folder written before hammer had one. A folder that records
	// worker_gomaxprocs (added just after) records its start too; the few
	// written in between are not compared on it.
	if a.WorkerGoMaxProcs > 0 && b.WorkerGoMaxProcs > 0 {
		ds = append(ds, difference{"real-time start", realtime(a), realtime(b)},
			difference{"worker GOMAXPROCS", fmt.Sprint(a.WorkerGoMaxProcs), fmt.Sprint(b.WorkerGoMaxProcs)})
	}
	return differences(ds)
}

// target names the user's service a folder raced, with its replicas, or
// "hammer's own strategies".
func target(e history.Env) string {
	if e.Target == "" {
		return "hammer's own strategies"
	}
	return fmt.Sprintf("%s × %d", e.Target, e.Replicas)
}

// model is a run's model with its rate when open.
func model(r RunSummary) string {
	if r.Model == "open" {
		return fmt.Sprintf("open at %g/s", r.Rate)
	}
	return r.Model
}

// realtime is how many of a run's workers started in a real-time burst:
// every one, none, or how many of how many.
func realtime(r RunSummary) string {
	switch r.RealtimeWorkers {
	case r.Procs:
		return "every worker"
	case 0:
		return "no worker"
	}
	return fmt.Sprintf("%d of %d workers", r.RealtimeWorkers, r.Procs)
}

// conditionMismatches says, one sentence each, how the machine and servers
// differ between A and B and in which runs both hold the conditions
// differ (named up to a few): either makes their latencies unlike.
func conditionMismatches(a, b Summary) []string {
	var out []string
	if s := setupMismatch(a, b); s != "" {
		out = append(out, s)
	}
	var differ []string
	for _, c := range pairs(a, b) {
		if s := runMismatch(c); s != "" {
			differ = append(differ, fmt.Sprintf("%s (%s)", c.A.Name, s))
		}
	}
	if len(differ) > 0 {
		out = append(out, fmt.Sprintf("%s raced under different conditions in A and B, so their latencies may not be comparable: %s",
			plural(len(differ), "run"), capList(differ, 3)))
	}
	return out
}
