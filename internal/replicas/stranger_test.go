package replicas

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// stranger serves "stranger" on 127.0.0.1:port until the test ends: a
// process that is not the replica, such as another race's replica.
func stranger(t *testing.T, port int) {
	t.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("the stranger cannot bind port %d: %v", port, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "stranger")
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
}

// TestStrangerTakesThePort: another process binds the port picked for a
// replica before the replica does, and answers its ready path. The
// replica is started again on another port instead of being taken as
// ready, so that no request of the race goes to the stranger.
func TestStrangerTakesThePort(t *testing.T) {
	var once sync.Once
	spec := pyServer(t)
	env := spec.Env
	spec.Env = func(i, port int) []string {
		once.Do(func() { stranger(t, port) })
		return env(i, port)
	}
	s, err := Start(context.Background(), spec, 1)
	if err != nil {
		t.Fatalf("Start: %v, want the replica started on another port", err)
	}
	defer s.Stop()
	resp, err := http.Get(s.URLs()[0] + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(b), "stranger") {
		t.Errorf("replica 0's URL %s is the stranger's", s.URLs()[0])
	}
}

// TestStrangerTakesACrashedReplicasPort: the port of a replica killed by
// the crash fault is taken by another process before the replica comes
// back; Restart fails instead of taking the stranger for the replica.
func TestStrangerTakesACrashedReplicasPort(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (0.7s in a -short run): skipped by -short (make test runs it)")
	}
	s, err := Start(context.Background(), pyServer(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	s.Killed(0)
	if _, err := s.Signal(0, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.rs[0].exited()
	stranger(t, s.rs[0].port)
	if err := s.Restart(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("Restart = %v, want the port named as taken by another process", err)
	}
}
