package realtimetest

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// Policies maps every thread of the process to its scheduling policy
// (unix.SCHED_FIFO, unix.SCHED_NORMAL, …); a thread that exits while it
// is read is left out.
func Policies(t testing.TB) map[int]uint32 {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]uint32{}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if attr, err := unix.SchedGetAttr(tid, 0); err == nil {
			got[tid] = attr.Policy
		}
	}
	return got
}
