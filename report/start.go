package report

import (
	"fmt"
	"strings"
)

// writeStartNote explains under report.md's verdict table how the
// contenders of the closed-model runs started: whether every worker
// process made its start a real-time burst (internal/realtime), which
// the start skew column depends on.
func writeStartNote(b *strings.Builder, s Summary) {
	var closed int
	var ordinary []string
	for _, r := range s.Runs {
		if r.Model == "open" {
			continue
		}
		closed++
		if r.RealtimeWorkers < r.Procs {
			ordinary = append(ordinary, fmt.Sprintf("`%s` (%d of %d)", r.Name, r.Procs-r.RealtimeWorkers, r.Procs))
		}
	}
	switch {
	case closed == 0:
		return
	case len(ordinary) == 0:
		b.WriteString("\nEvery worker process started its contenders in a real-time burst: its threads ran as SCHED_FIFO " +
			"from just before the go instant until all its contenders had started (at most 50 ms after it), so that no " +
			"server process woken by a first request took a core from the contenders still starting (`--realtime-start`).\n")
	default:
		fmt.Fprintf(b, "\nWorker processes that started their contenders under ordinary scheduling, without a real-time burst "+
			"(`--realtime-start=false`, no CAP_SYS_NICE, not Linux, or a hammer older than the burst): %s. There a server process woken by a first request "+
			"can take a core from the contenders still starting, and the start skew is larger.\n", strings.Join(ordinary, ", "))
	}
}
