package scenarios

import (
	"os"
	"strings"
	"testing"
)

// TestLockCheckMode: a library races the modes with a lock but fenced;
// hammer's own lock races everything.
func TestLockCheckMode(t *testing.T) {
	for _, l := range Locks() {
		for _, m := range Modes() {
			err := l.CheckMode(m)
			refused := l != HammerLock && (!m.UsesLock() || m == Fenced)
			if (err != nil) != refused {
				t.Errorf("lock %s in %s: %v, want refused %v", l, m, err, refused)
			}
		}
	}
}

func TestParseLock(t *testing.T) {
	tests := []struct {
		in      string
		want    Lock
		wantErr bool
	}{
		{"", HammerLock, false},
		{"hammer", HammerLock, false},
		{"redsync", Redsync, false},
		{"redislock", Redislock, false},
		{"Redsync", "", true},
		{"redlock", "", true},
	}
	for _, tt := range tests {
		got, err := ParseLock(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseLock(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestMatrixLockOption: lock=NAME picks a cell's lock and names it; the
// lock's own limits are the matrix's errors.
func TestMatrixLockOption(t *testing.T) {
	tests := []matrixCase{
		{"libraries", "lock-only pause unsafe lock=redsync\nlock-plus-update crash safe no-hint lock=redislock extend\n", []Scenario{
			{Name: "lock-only/pause+redsync", Mode: LockOnly, Fault: Pause, Lock: Redsync, Expected: Unsafe},
			{Name: "lock-plus-update/crash+extend+no-hint+redislock", Mode: LockPlusUpdate, Fault: Crash, Extend: true, NoHint: true,
				Lock: Redislock, Expected: Safe},
		}, ""},
		{"hammer's own, named as the default", "fenced pause safe lock=hammer\n", []Scenario{
			{Name: "fenced/pause", Mode: Fenced, Fault: Pause, Lock: HammerLock, Expected: Safe},
		}, ""},
		{"fenced with a library", "fenced none safe lock=redislock\n", nil, "matrix line 1: redislock hands out no fencing token"},
		{"library without a lock", "update-only none safe lock=redsync\n", nil, "lock=redsync needs a mode with a lock"},
		{"unknown lock", "lock-only none safe lock=etcd\n", nil, `option "lock=etcd": unknown lock "etcd"`},
		{"empty lock", "lock-only none safe lock=\n", nil, `option "lock="`},
		{"lock twice", "lock-only none safe lock=redsync lock=redislock\n", nil, "each at most once"},
		{"same cell twice", "lock-only none safe lock=hammer\nlock-only none safe\n", nil, "cell lock-only repeats line 1"},
	}
	parseMatrixCases(t, tests)
}

// TestVariantMatrixRefusesLock: a service takes its own lock.
func TestVariantMatrixRefusesLock(t *testing.T) {
	_, err := ParseVariantMatrix(strings.NewReader("naive pause unsafe lock=redsync\n"), []string{"naive"})
	if err == nil {
		t.Fatal("a service's matrix took lock=redsync")
	}
}

// TestLocksMatrix: scenarios/locks.matrix (make gate-locks) parses, and
// crosses every lock with every fault in lock-plus-update and with at
// least no fault in lock-only, and races nothing else.
func TestLocksMatrix(t *testing.T) {
	f, err := os.Open("locks.matrix")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cells, err := ParseMatrix(f)
	if err != nil {
		t.Fatalf("locks.matrix: %v", err)
	}
	type column struct {
		mode  Mode
		lock  Lock
		fault Fault
	}
	seen := map[column]bool{}
	for _, c := range cells {
		if c.Mode != LockOnly && c.Mode != LockPlusUpdate {
			t.Errorf("cell %s: locks.matrix races the two modes a library can race, not %s", c.Name, c.Mode)
		}
		seen[column{c.Mode, c.LockName(), c.Fault}] = true
	}
	for _, l := range Locks() {
		for _, flt := range append(Faults(), NoFault) {
			if flt.Quorum() {
				continue // Redlock's faults: scenarios/redlock.matrix
			}
			if !seen[column{LockPlusUpdate, l, flt}] {
				t.Errorf("no cell lock-plus-update/%s with lock %s", flt, l)
			}
		}
		if !seen[column{LockOnly, l, NoFault}] {
			t.Errorf("no cell lock-only with lock %s", l)
		}
	}
}
