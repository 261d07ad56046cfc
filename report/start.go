package report

import (
	"fmt"
	"strings"
)

// burstWhy is why a worker may start without a real-time burst.
const burstWhy = "`--realtime-start=false`; no CAP_SYS_NICE, real-time throttling off or the kernel refused; " +
	"not Linux; or a hammer older than the burst"

// writeStartNote explains under report.md's verdict table how the
// contenders of the closed-model runs started: whether every worker
// process made its start a real-time burst (internal/realtime), which
// the start skew column depends on.
func writeStartNote(b *strings.Builder, s Summary) {
	var closed, some int
	var ordinary []string
	for _, r := range s.Runs {
		if r.Model == "open" {
			continue
		}
		closed++
		if r.RealtimeWorkers > 0 {
			some++
		}
		if r.RealtimeWorkers < r.Procs {
			ordinary = append(ordinary, fmt.Sprintf("`%s` (%d of %d)", r.Name, r.Procs-r.RealtimeWorkers, r.Procs))
		}
	}
	switch {
	case closed == 0:
		return
	case len(ordinary) == 0:
		b.WriteString("\nEvery worker process started its contenders in a real-time burst: its threads ran as SCHED_FIFO " +
			"from just before the go instant until all its contenders had started (at most 55 ms, plus 20 µs for each of its contenders), so that no " +
			"server process woken by a first request took a core from the contenders still starting (`--realtime-start`).\n")
	case some == 0:
		fmt.Fprintf(b, "\nNo worker process started its contenders in a real-time burst (%s): a server process woken by a "+
			"first request can take a core from the contenders still starting, and the start skew is larger than with one.\n", burstWhy)
	default:
		fmt.Fprintf(b, "\nWorker processes that started their contenders under ordinary scheduling, without a real-time burst "+
			"(%s): %s. There a server process woken by a first request can take a core from the contenders still "+
			"starting, and the start skew is larger.\n", burstWhy, strings.Join(ordinary, ", "))
	}
}

// writeCPUNote says under report.md's verdict table with how many of its
// host's CPUs each worker process's Go runtime raced (GOMAXPROCS), for
// the runs that recorded it.
func writeCPUNote(b *strings.Builder, s Summary) {
	var runs []string
	same := 0 // the one value every recording run had, -1 when they differ
	for _, r := range s.Runs {
		if r.WorkerGoMaxProcs == 0 {
			continue
		}
		if same == 0 {
			same = r.WorkerGoMaxProcs
		} else if same != r.WorkerGoMaxProcs {
			same = -1
		}
		runs = append(runs, fmt.Sprintf("`%s` %d", r.Name, r.WorkerGoMaxProcs))
	}
	const why = "a worker sharing its host with others of the race takes its share of the CPUs, ceil(CPUs ÷ workers); " +
		"GOMAXPROCS in a worker's environment overrides it"
	switch {
	case len(runs) == 0:
	case same > 0:
		fmt.Fprintf(b, "\nThe worker processes raced with GOMAXPROCS %d at most (%s).\n", same, why)
	default:
		fmt.Fprintf(b, "\nThe most GOMAXPROCS a worker process raced with (%s): %s.\n", why, strings.Join(runs, ", "))
	}
}
