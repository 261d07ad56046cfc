package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hammer-load/hammer/scenarios"
)

// TestLockTTL: a fault that needs the lock to expire races with the short
// fault TTL, every other race with a TTL no host stall outlives, and
// --lock-ttl overrides both; faults last three of their TTLs.
func TestLockTTL(t *testing.T) {
	gate := gateDefaults()
	given := gateDefaults()
	given.lockTTL, given.lockTTLSet = time.Second, true
	tests := []struct {
		name         string
		f            raceFlags
		fault        scenarios.Fault
		wantTTL      time.Duration
		wantPauseFor time.Duration
	}{
		{"no fault", gate, scenarios.NoFault, scenarios.StallProofTTL, 450 * time.Millisecond},
		{"duplicate", gate, scenarios.Duplicate, scenarios.StallProofTTL, 450 * time.Millisecond},
		{"lock loss", gate, scenarios.LockLoss, scenarios.StallProofTTL, 450 * time.Millisecond},
		{"pause", gate, scenarios.Pause, 150 * time.Millisecond, 450 * time.Millisecond},
		{"crash", gate, scenarios.Crash, time.Second, 3 * time.Second},
		{"slow release", gate, scenarios.SlowRelease, time.Second, 3 * time.Second},
		{"partition", gate, scenarios.Partition, 150 * time.Millisecond, 450 * time.Millisecond},
		{"run pause", loadDefaults(), scenarios.Pause, 500 * time.Millisecond, 1500 * time.Millisecond},
		{"given, no fault", given, scenarios.NoFault, time.Second, 3 * time.Second},
		{"given, pause", given, scenarios.Pause, time.Second, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.ttlFor(tt.fault); got != tt.wantTTL {
				t.Errorf("ttlFor(%q) = %s, want %s", tt.fault, got, tt.wantTTL)
			}
			if got := tt.f.pauseFor(tt.fault); got != tt.wantPauseFor {
				t.Errorf("pauseFor(%q) = %s, want %s", tt.fault, got, tt.wantPauseFor)
			}
		})
	}
}

// TestResultsDir: the folder is made with its missing parents and test
// written; discard removes what was made while it is empty, and nothing
// that holds files or existed before.
func TestResultsDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "results", "run")
	r, err := makeResultsDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Fatalf("made %s holding %d entries (%v), want an empty folder", dir, len(entries), err)
	}
	r.discard()
	if _, err := os.Stat(filepath.Join(base, "results")); err == nil {
		t.Error("discard left the folders it made")
	}
	if _, err := os.Stat(base); err != nil {
		t.Errorf("discard removed a folder that existed before: %v", err)
	}

	r, err = makeResultsDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.discard()
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Errorf("discard removed a folder holding results: %v", err)
	}
	if _, err := makeResultsDir(dir); err == nil {
		t.Error("a folder holding files was accepted")
	}
}

// TestCheckFaultTimeout: every fault fits the gate's and the load's
// defaults, and a fault that may last as long as --timeout is refused: at
// --lock-ttl 12s a pause strikes two holders of 36 s each, 72 s in all,
// past the gate's 1 min timeout; slow-release may wait twelve TTLs, 60 s at
// --lock-ttl 5s; net-delay at --lock-ttl 1m keeps its latency for six
// minutes, past the load's 5 min.
func TestCheckFaultTimeout(t *testing.T) {
	for name, d := range map[string]raceFlags{"gate": gateDefaults(), "load": loadDefaults()} {
		for _, fault := range scenarios.Faults() {
			f := d
			f.procs = max(f.procs, fault.NeedsProcs())
			for _, check := range []func(scenarios.Fault) error{f.checkFault, f.checkLasts} {
				if err := check(fault); err != nil {
					t.Errorf("%s defaults, %s: %v", name, fault, err)
				}
			}
		}
	}
	tests := []struct {
		name    string
		f       raceFlags
		fault   scenarios.Fault
		lockTTL time.Duration
		refused bool
	}{
		{"gate pause, 9s TTL", gateDefaults(), scenarios.Pause, 9 * time.Second, false},
		{"gate pause, 12s TTL", gateDefaults(), scenarios.Pause, 12 * time.Second, true},
		{"gate partition, 12s TTL", gateDefaults(), scenarios.Partition, 12 * time.Second, false},
		{"gate crash, 19s TTL", gateDefaults(), scenarios.Crash, 19 * time.Second, false},
		{"gate crash, 20s TTL", gateDefaults(), scenarios.Crash, 20 * time.Second, true},
		{"gate duplicate, 1m TTL", gateDefaults(), scenarios.Duplicate, time.Minute, false},
		{"gate short-ttl, 9s TTL", gateDefaults(), scenarios.ShortTTL, 9 * time.Second, false},
		{"gate short-ttl, 10s TTL", gateDefaults(), scenarios.ShortTTL, 10 * time.Second, true},
		{"gate pause-stop, 19s TTL", gateDefaults(), scenarios.PauseStop, 19 * time.Second, false},
		{"gate slow-release, 4s TTL", gateDefaults(), scenarios.SlowRelease, 4 * time.Second, false},
		{"gate slow-release, 5s TTL", gateDefaults(), scenarios.SlowRelease, 5 * time.Second, true},
		{"load net-delay, 45s TTL", loadDefaults(), scenarios.NetDelay, 45 * time.Second, false},
		{"load net-delay, 1m TTL", loadDefaults(), scenarios.NetDelay, time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			f.lockTTL, f.lockTTLSet = tt.lockTTL, true
			if err := f.checkLasts(tt.fault); (err != nil) != tt.refused {
				t.Errorf("checkLasts(%s) = %v, want refused %v", tt.fault, err, tt.refused)
			}
		})
	}
}
