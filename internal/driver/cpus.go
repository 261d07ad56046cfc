package driver

import (
	"os"
	"runtime"
)

// shareCPUs gives a worker process its share of the CPUs of a host it
// shares with others of the race: GOMAXPROCS ceil(CPUs ÷ workers), unless
// the GOMAXPROCS environment variable sets it.
//
// Go's runtime takes the host for its own: with GOMAXPROCS at every CPU,
// a worker whose connections all wait on the server parks its threads and
// wakes them for each answer, and four such runtimes on two cores spend
// the CPU the server under test needs on it. On 2 cores, 4 workers of 250
// contenders used as much CPU at one P each as a single process of 1000
// did (see BENCHMARKS.md).
func shareCPUs(workers int) {
	if workers <= 1 || os.Getenv("GOMAXPROCS") != "" {
		return
	}
	cpus := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS((cpus + workers - 1) / workers)
}
