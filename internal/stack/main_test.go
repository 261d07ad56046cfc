package stack

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// envHammerChild makes the test binary act as a hammer that starts a Local
// stack and then waits to be killed.
const envHammerChild = "HAMMER_STACK_TEST_HAMMER_CHILD"

// childStartTimeout bounds the wait for the child to report its stack.
const childStartTimeout = 2 * time.Minute

// TestMain lets the test binary stand in for a hammer process that a test
// kills: startChild re-executes it with envHammerChild set.
func TestMain(m *testing.M) {
	if os.Getenv(envHammerChild) == "1" {
		runHammerChild()
	}
	os.Exit(m.Run())
}

// runHammerChild starts a Local stack, prints its temp dir and server pids,
// and sleeps until killed.
func runHammerChild() {
	s, err := Start(context.Background(), Options{Kind: Local})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(s.local.dir, s.local.redis.pid(), s.local.pg.pid())
	time.Sleep(time.Minute)
	os.Exit(1)
}

// hammerChild is a child process running a Local stack.
type hammerChild struct {
	cmd             *exec.Cmd
	dir             string
	redisPid, pgPid int
}

// startChild starts a hammer child and waits until it reports its stack.
// Cleanup kills it if still running and removes its directory.
func startChild(t *testing.T) *hammerChild {
	t.Helper()
	// -test.run=^$ runs no test should TestMain not catch the variable.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHammerChild+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &hammerChild{cmd: cmd}
	timer := time.AfterFunc(childStartTimeout, func() { _ = cmd.Process.Kill() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	timer.Stop()
	if _, err := fmt.Sscan(line, &c.dir, &c.redisPid, &c.pgPid); err != nil {
		_ = c.kill()
		t.Fatalf("child said %q: %v", line, err)
	}
	t.Cleanup(func() {
		_ = c.kill()
		os.RemoveAll(c.dir) // a killed hammer cannot clean up
	})
	return c
}

// kill sends SIGKILL to the child and reaps it; a reaped child is left
// alone.
func (c *hammerChild) kill() error {
	if c.cmd.ProcessState != nil {
		return nil
	}
	err := c.cmd.Process.Kill()
	_ = c.cmd.Wait() // "signal: killed"
	return err
}
