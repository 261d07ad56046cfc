package stack

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// TestAwaitRefusesAStrangersAnswer: a probe answered on the server's port
// by another process (another run's server that bound the port first) is
// not the server ready: await says the port is in use, so that the server
// is started on another one, and stops the process it started.
func TestAwaitRefusesAStrangersAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	p := shProc(t, "fake-server", "sleep 30")
	answered := func(context.Context) error { return nil } // the stranger answers
	if err := await(context.Background(), p, port, answered); !errors.Is(err, errPortInUse) {
		t.Fatalf("await = %v, want errPortInUse", err)
	}
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Error("the server process still runs after its port was found taken")
	}
}
