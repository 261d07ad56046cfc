package agent

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestJoinSaysItWaits: an agent whose coordinator does not listen yet says
// so once, naming the address and how long it keeps dialling, rather than
// stay silent for its whole --join-timeout; then it gives up.
func TestJoinSaysItWaits(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	log := &syncBuffer{}
	err = <-join(addr, func(o *JoinOptions) { o.Timeout, o.Log = 1200*time.Millisecond, log })
	if err == nil || !strings.Contains(err.Error(), "no coordinator at "+addr+" within --join-timeout 1.2s") {
		t.Errorf("join with nobody listening: %v", err)
	}
	want := "hammer agent: no coordinator at " + addr + " yet"
	if n := strings.Count(log.String(), want); n != 1 || !strings.Contains(log.String(), "dialling again until --join-timeout 1.2s") {
		t.Errorf("the log says %d times that it waits, want once:\n%s", n, log)
	}
}
