package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Mode
		wantErr bool
	}{
		{"none", "none", None, false},
		{"lock-plus-update", "lock-plus-update", LockPlusUpdate, false},
		{"skip-locked", "skip-locked", SkipLocked, false},
		{"redis-gate", "redis-gate", RedisGate, false},
		{"counter-only", "counter-only", CounterOnly, false},
		{"unknown", "lock", "", true},
		{"case matters", "NONE", "", true},
		{"empty", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMode(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestLoadMatrix(t *testing.T) {
	seen := map[Mode]Expectation{}
	for _, s := range Load() {
		seen[s.Mode] = s.Expected
	}
	for _, m := range Modes() {
		want := Safe
		if m == None {
			want = Unsafe
		}
		if got, ok := seen[m]; !ok || got != want {
			t.Errorf("mode %s: expectation %q, want %q", m, got, want)
		}
	}
}

// TestCheckFault: the faults that take away what Redis holds race only the
// modes that keep something there, the faults that strike a Redlock's
// majority only the modes with a lock; every other fault races every mode.
func TestCheckFault(t *testing.T) {
	for _, m := range Modes() {
		for _, f := range append(Faults(), NoFault) {
			err := m.CheckFault(f)
			refused := (f == LockLoss || f == Failover) && (m == None || m == UpdateOnly || m == SkipLocked) ||
				(f == NodeRestart || f == ClockJump) && !m.UsesLock()
			if (err != nil) != refused {
				t.Errorf("%s under %s: %v, want refused %v", m, f, err, refused)
			}
		}
	}
}

// TestRedlockMatrix: every cell of the Redlock matrix races five nodes, and
// lock-only is expected caught under each Redlock timeline.
func TestRedlockMatrix(t *testing.T) {
	unsafe := map[Fault]bool{}
	for _, c := range Redlock() {
		if c.Nodes != 5 {
			t.Errorf("cell %s races %d nodes, want 5", c.Name, c.Nodes)
		}
		if c.Expected == Unsafe {
			unsafe[c.Fault] = true
		}
	}
	for _, f := range []Fault{NodeRestart, ClockJump, Pause} {
		if !unsafe[f] {
			t.Errorf("no cell expects %s to be caught", f)
		}
	}
}

func TestGateMatrix(t *testing.T) {
	cells := Gate()
	if len(cells) < 10 {
		t.Fatalf("default gate has %d cells", len(cells))
	}
	unsafe := 0
	for _, c := range cells {
		if c.Expected == Unsafe {
			unsafe++
		}
	}
	if unsafe == 0 {
		t.Error("the default gate has no cell that must see a bug")
	}
}

func TestParseMatrix(t *testing.T) {
	tests := []matrixCase{
		{"cells and comments", "# c\n\nlock-only pause unsafe extend\nupdate-only none safe # x\n", []Scenario{
			{Name: "lock-only/pause+extend", Mode: LockOnly, Fault: Pause, Extend: true, Expected: Unsafe},
			{Name: "update-only", Mode: UpdateOnly, Expected: Safe},
		}, ""},
		{"byte-order mark", "\ufeffupdate-only none safe\n", []Scenario{{Name: "update-only", Mode: UpdateOnly, Expected: Safe}}, ""},
		{"byte-order mark past the first line", "update-only none safe\n\ufefflock-only none safe\n", nil, "matrix line 2: unknown mode"},
		{"unknown mode", "optimistic none safe\n", nil, "matrix line 1: unknown mode"},
		{"unknown fault", "lock-only meteor safe\n", nil, "matrix line 1: unknown fault"},
		{"bad expectation", "lock-only none fine\n", nil, `expect "fine"`},
		{"too few fields", "lock-only none\n", nil, "got 2 fields"},
		{"extend without lock", "update-only none safe extend\n", nil, "extend needs a mode with a lock"},
		{"both options", "lock-plus-update pause safe no-hint extend\n", []Scenario{
			{Name: "lock-plus-update/pause+extend+no-hint", Mode: LockPlusUpdate, Fault: Pause, Extend: true, NoHint: true, Expected: Safe},
		}, ""},
		{"no-hint without lock", "update-only none safe no-hint\n", nil, "no-hint needs a mode with a lock"},
		{"option twice", "lock-only none safe extend extend\n", nil, `option "extend": want extend, no-hint, nodes=N or lock=NAME, each at most once`},
		{"nodes", "lock-only node-restart unsafe nodes=5\nfenced pause safe no-hint nodes=3\n", []Scenario{
			{Name: "lock-only/node-restart+nodes=5", Mode: LockOnly, Fault: NodeRestart, Nodes: 5, Expected: Unsafe},
			{Name: "fenced/pause+no-hint+nodes=3", Mode: Fenced, Fault: Pause, NoHint: true, Nodes: 3, Expected: Safe},
		}, ""},
		{"nodes without lock", "update-only none safe nodes=5\n", nil, "nodes=5 needs a mode with a lock"},
		{"even nodes", "lock-only none safe nodes=4\n", nil, "want an odd number of Redis nodes"},
		{"a million nodes", "lock-only none safe nodes=1000001\n", nil, "want at most 15 Redis nodes"},
		{"redislock over nodes", "lock-only none safe nodes=3 lock=redislock\n", nil, "redislock works on one Redis node, not a Redlock over 3"},
		{"bad nodes", "lock-only none safe nodes=many\n", nil, `option "nodes=many"`},
		{"quorum fault on one node", "lock-only clock-jump unsafe\n", nil, "the clock-jump fault strikes a node of a Redlock holder's majority: it needs 3 or more Redis nodes, got 1"},
		{"quorum fault without lock", "redis-gate node-restart safe\n", nil, "mode redis-gate takes no lock"},
		{"unknown option", "lock-only none safe fast\n", nil, `option "fast"`},
		{"new modes", "skip-locked crash safe\nredis-gate lock-loss safe\ncounter-only failover unsafe\n", []Scenario{
			{Name: "skip-locked/crash", Mode: SkipLocked, Fault: Crash, Expected: Safe},
			{Name: "redis-gate/lock-loss", Mode: RedisGate, Fault: LockLoss, Expected: Safe},
			{Name: "counter-only/failover", Mode: CounterOnly, Fault: Failover, Expected: Unsafe},
		}, ""},
		{"extend with a stock counter", "redis-gate none safe extend\n", nil, "extend needs a mode with a lock"},
		{"lock-loss without redis state", "skip-locked lock-loss safe\n", nil, "cell skip-locked/lock-loss: the lock-loss fault takes away what Redis holds"},
		{"failover without redis state", "update-only failover safe\n", nil, "mode update-only keeps nothing there"},
		{"repeated cell", "fenced pause safe\nfenced pause safe\n", nil, "matrix line 2: cell fenced/pause repeats line 1"},
		{"empty", "# nothing\n", nil, "no cells"},
	}
	parseMatrixCases(t, tests)
}

// matrixCase is a matrix text and the scenarios it parses into, or the
// error it is refused with.
type matrixCase struct {
	name    string
	in      string
	want    []Scenario
	wantErr string
}

// parseMatrixCases parses each case's text and checks the outcome.
func parseMatrixCases(t *testing.T, tests []matrixCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMatrix(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestLasts: a fault that strikes two holders may last two pauses, since
// the second strike can come after the first ended; net-delay keeps its
// latency for two windows; a partition and a crash last one; slow-release
// may wait ten TTLs and a half (four pauses of three TTLs); the faults
// whose TTL no stall outlives, and a duplicate, do not last.
func TestLasts(t *testing.T) {
	pause := 3 * time.Second
	want := map[Fault]time.Duration{Pause: 2 * pause, ShortTTL: 2 * pause, NetDelay: 2 * pause, Partition: pause, PauseStop: pause,
		Crash: pause, SlowRelease: 4 * pause}
	for _, f := range append(Faults(), NoFault) {
		if got := f.Lasts(pause); got != want[f] {
			t.Errorf("%s.Lasts(%s) = %s, want %s", f, pause, got, want[f])
		}
	}
}
