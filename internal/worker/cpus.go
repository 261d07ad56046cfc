package worker

import (
	"os"
	"runtime"
	"strconv"
)

// shareCPUs gives a worker process its share of the CPUs of a host it
// shares with others of the race: GOMAXPROCS ceil(CPUs ÷ workers), CPUs
// being the runtime's default (the host's, or its container's CPU limit),
// unless the GOMAXPROCS environment variable sets one the runtime takes.
// It divides the process's GOMAXPROCS, so it is called once, at the
// worker's start.
//
// Go's runtime takes the host for its own: with GOMAXPROCS at every CPU,
// a worker whose connections all wait on the server parks its threads and
// wakes them for each answer, and several such runtimes on a few cores
// spend on it the CPU the server under test needs. On 2 cores, 4 workers
// of 250 contenders ran 68–80 ms over a race at one P each against
// 109–113 ms at two (see BENCHMARKS.md).
func shareCPUs(workers int) {
	if n, err := strconv.Atoi(os.Getenv("GOMAXPROCS")); workers <= 1 || (err == nil && n > 0) {
		return
	}
	cpus := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS((cpus + workers - 1) / workers)
}
