package driver

import (
	"errors"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/scenarios"
)

func TestInfoFields(t *testing.T) {
	got := infoFields("# Clients\r\nconnected_clients:12\r\nmaxclients:10000\r\nclient_recent_max_input_buffer:20480\r\nname:x\r\n")
	if got["connected_clients"] != 12 || got["maxclients"] != 10000 {
		t.Errorf("infoFields = %v", got)
	}
	if _, ok := got["name"]; ok {
		t.Error("a field that is not a number was kept")
	}
}

// TestCheckHost: a race that would hold more attempts than memory can take
// is refused before it starts; an ordinary one is not.
func TestCheckHost(t *testing.T) {
	ordinary := Options{Scenario: scenarios.Scenario{Mode: scenarios.LockOnly}, Procs: 4, Goroutines: 250, Attempts: 1, PoolSize: 16}
	if err := CheckHost([]Options{ordinary}); err != nil {
		t.Errorf("CheckHost(4 × 250) = %v, want nil", err)
	}
	huge := ordinary
	huge.Attempts = 1 << 40 / (4 * 250)
	if err := CheckHost([]Options{ordinary, huge}); !errors.Is(err, ErrLimit) {
		t.Errorf("CheckHost(2^40 attempts) = %v, want ErrLimit", err)
	}
}

// TestConnectionsNeeded counts what a race opens at once.
func TestConnectionsNeeded(t *testing.T) {
	o := Options{Scenario: scenarios.Scenario{Mode: scenarios.LockOnly}, Procs: 2, Goroutines: 50, PoolSize: 8}
	if got, want := redisConns(o), 2*DefaultRedisPool+4; got != want {
		t.Errorf("redisConns with the default pool = %d, want %d", got, want)
	}
	o.RedisPool = 3
	if got, want := redisConns(o), 2*3+4; got != want {
		t.Errorf("redisConns with --redis-pool 3 = %d, want %d", got, want)
	}
	o.Goroutines, o.Scenario.Fault = 5000, scenarios.Duplicate
	if got, want := redisConns(o), 2*3+4; got != want {
		t.Errorf("redisConns of 5000 goroutines sending twice = %d, want %d: they share the pool", got, want)
	}
	if got, want := pgConns(o), 2*8+3; got != want {
		t.Errorf("pgConns = %d, want %d", got, want)
	}
}

// TestCheckVersion: a PostgreSQL older than 12 is refused with its release
// named; 12 and later are not.
func TestCheckVersion(t *testing.T) {
	err := checkVersion(110022, "11.22")
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "11.22") {
		t.Errorf("checkVersion(11.22) = %v, want ErrLimit naming 11.22", err)
	}
	for _, v := range []int{120000, 150018, 170002} {
		if err := checkVersion(v, "x"); err != nil {
			t.Errorf("checkVersion(%d) = %v, want nil", v, err)
		}
	}
}

// TestContenderBytes: a contender that waits in line for hammer's own
// lock is reckoned at what its small stack holds, or without a goroutine
// when a flash start lines it up; one of a mode without a lock, of a lock
// library or of a service at the larger figure.
func TestContenderBytes(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want int64
	}{
		{Options{Scenario: scenarios.Scenario{Mode: scenarios.LockPlusUpdate}, Attempts: 1}, bytesPerLined},
		{Options{Scenario: scenarios.Scenario{Mode: scenarios.Fenced}}, bytesPerLined},
		{Options{Scenario: scenarios.Scenario{Mode: scenarios.LockPlusUpdate, Fault: scenarios.Pause}}, bytesPerWaiter},
		{Options{Scenario: scenarios.Scenario{Mode: scenarios.LockPlusUpdate}, Attempts: 2}, bytesPerWaiter},
		{Options{Scenario: scenarios.Scenario{Mode: scenarios.LockOnly}, Rate: 100}, bytesPerWaiter},
		{Options{Scenario: scenarios.Scenario{Mode: scenarios.UpdateOnly}}, bytesPerContender},
		{Options{Scenario: scenarios.Scenario{Mode: scenarios.LockOnly, Lock: scenarios.Redsync}}, bytesPerContender},
		{Options{Scenario: scenarios.Scenario{Mode: scenarios.LockOnly}, Contender: "http"}, bytesPerContender},
	} {
		if got := contenderBytes(c.o); got != c.want {
			t.Errorf("contenderBytes(%s, lock %q, contender %q) = %d, want %d", c.o.Scenario.Mode, c.o.Scenario.Lock, c.o.Contender, got, c.want)
		}
	}
}
