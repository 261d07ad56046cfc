package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

// serviceClaims are the claims of a run of 3 replicas: replica 0 takes
// the lock and hands it to replica 1, which waited and whose TTL runs
// out; replica 2 then takes it and hands it to replica 0 twice in a row,
// close enough to be drawn as one bar; a client no replica holds gives
// up.
func serviceClaims() (history.Run, []history.LockClaim) {
	goAt := int64(1_000_000_000_000)
	ms := func(v float64) int64 { return goAt + int64(v*float64(time.Millisecond)) }
	run := history.Run{Name: "lock-only", Mode: "lock-only", GoAt: goAt}
	return run, []history.LockClaim{
		{Run: "lock-only", Replica: 0, Token: "a", First: ms(1), Last: ms(1), Tries: 1, Acquired: ms(1), Released: ms(10)},
		{Run: "lock-only", Replica: 1, Token: "b", First: ms(2), Last: ms(11), Tries: 4, Acquired: ms(11), Expired: ms(511)},
		{Run: "lock-only", Replica: 2, Token: "c", First: ms(100), Last: ms(520), Tries: 9, Acquired: ms(520), Released: ms(530)},
		{Run: "lock-only", Replica: 0, Token: "d", First: ms(521), Last: ms(530.1), Tries: 3, Acquired: ms(530.1), Released: ms(531)},
		{Run: "lock-only", Replica: 0, Token: "e", First: ms(522), Last: ms(531.1), Tries: 3, Acquired: ms(531.1), Released: ms(540)},
		{Run: "lock-only", Replica: -1, Token: "f", First: ms(3), Last: ms(400), Tries: 30},
	}
}

// TestServiceLockSection renders the service lock of a run into
// report.md's section and summary.json's service_lock (golden), and
// draws its holders: a lane per replica, the untraced last, an expired
// holding amber, and two holdings a hair apart merged into one bar.
func TestServiceLockSection(t *testing.T) {
	run, claims := serviceClaims()
	sl := serviceLock(claims)
	var b strings.Builder
	writeServiceLock(&b, Summary{Runs: []RunSummary{{Name: run.Name, ServiceLock: sl}, {Name: "naive"}}})
	js, err := json.MarshalIndent(sl, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "servicelock.md.golden", b.String()+"\n"+string(js)+"\n")

	l := holderLanes(run, claims)
	if l == nil || len(l.Lanes) != 4 {
		t.Fatalf("holder lanes %+v, want 4", l)
	}
	var names, classes []string
	for _, ln := range l.Lanes {
		names = append(names, ln.Request+": "+ln.Sub)
		for _, b := range ln.Bars {
			classes = append(classes, ln.Request+" "+b.Class+" "+b.Title)
		}
	}
	wantNames := "replica 0: 3 held · 0 gave up|replica 1: 1 held · 0 gave up|replica 2: 1 held · 0 gave up|untraced: 0 held · 1 gave up"
	if got := strings.Join(names, "|"); got != wantNames {
		t.Errorf("lanes %q, want %q", got, wantNames)
	}
	wantBars := "replica 0 held held the lock|replica 0 held 2 holders in a row held the lock|" +
		"replica 1 held expired held the lock until its TTL ran out|replica 2 held held the lock"
	if got := strings.Join(classes, "|"); got != wantBars {
		t.Errorf("bars %q, want %q", got, wantBars)
	}
	if serviceLock(nil) != nil || holderLanes(run, nil) != nil {
		t.Errorf("a run without claims has a service lock")
	}
}
