package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A worker started on blocking pipes, as its coordinator or agent starts
// it, reads and writes them through Go's poller: both descriptors are
// non-blocking while it waits for its configuration.
func TestWorkerPipesPolled(t *testing.T) {
	cmd := exec.Command(os.Args[0], workerCommand)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close() // the worker reads the end of its input and exits
	pid := cmd.Process.Pid
	for fd := range 2 {
		deadline := time.Now().Add(10 * time.Second)
		for {
			flags, err := fdFlags(pid, fd)
			if err != nil {
				t.Fatal(err)
			}
			if flags&unix.O_NONBLOCK != 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the worker's fd %d is still blocking (flags %o)", fd, flags)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// fdFlags reads the open flags of process pid's descriptor fd.
func fdFlags(pid, fd int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, fd))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			return int(n), err
		}
	}
	return 0, fmt.Errorf("no flags in fdinfo %d of %d", fd, pid)
}
