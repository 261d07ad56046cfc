package target

import (
	"reflect"
	"testing"

	"github.com/hammer-load/hammer/history"
)

// TestClaimLog follows claims through a MONITOR stream: tries that fail
// while the lock is held, a release by the script's DEL, a handoff to a
// waiter, an expiry, a PEXPIRE that extends the holder, a claim that
// never gets the lock, another key, and a client no replica holds.
func TestClaimLog(t *testing.T) {
	lines := []string{
		`+100.000000 [0 127.0.0.1:5001] "set" "k:lock" "a" "px" "150" "nx"`, // a takes it
		`+100.001000 [0 127.0.0.1:5002] "SET" "k:lock" "b" "NX" "PX" "150"`, // b waits
		`+100.002000 [0 127.0.0.1:5002] "set" "other" "b" "px" "150" "nx"`,  // another key
		`+100.010000 [0 127.0.0.1:5002] "SET" "k:lock" "b" "NX" "PX" "150"`, // b still waits
		`+100.020000 [0 127.0.0.1:5001] "evalsha" "abc" "1" "k:lock" "a"`,   // a releases
		`+100.020001 [0 lua] "del" "k:lock"`,                                // the script's DEL
		`+100.025000 [0 127.0.0.1:5002] "SET" "k:lock" "b" "NX" "PX" "150"`, // b takes it: a handoff
		`+100.100000 [0 127.0.0.1:5002] "pexpire" "k:lock" "150"`,           // b extends to 100.250
		`+100.200000 [0 127.0.0.1:5003] "set" "k:lock" "c" "px" "150" "nx"`, // c waits: b extended
		`+100.300000 [0 127.0.0.1:5003] "set" "k:lock" "c" "px" "150" "nx"`, // b expired at 100.250; c takes it
		`+100.310000 [0 127.0.0.1:9999] "set" "k:lock" "d" "px" "150" "nx"`, // d, untraced, never gets it
		`+100.320000 [0 127.0.0.1:9999] "set" "k:lock" "d" "px" "150" "nx"`, //
		`+100.330000 [0 127.0.0.1:5003] "eval" "script" "1" "k:lock" "c"`,   //
		`+100.330002 [0 lua] "del" "k:lock"`,                                // c released
	}
	replicas := map[int]int{5001: 0, 5002: 1, 5003: 2}
	l := newClaimLog(func(port int) (int, bool) { r, ok := replicas[port]; return r, ok })
	for _, line := range lines {
		m, ok := parseMonitor(line)
		if !ok {
			t.Fatalf("parse %q", line)
		}
		if m.args[1] == "k:lock" {
			l.observe(m)
		}
	}
	const s = int64(100e9)
	ms := func(v float64) int64 { return s + int64(v*1e6) }
	want := []history.LockClaim{
		{Replica: 0, Token: "a", First: s, Last: s, Tries: 1, Acquired: s, Released: ms(20.001)},
		{Replica: 1, Token: "b", First: ms(1), Last: ms(25), Tries: 3, Acquired: ms(25), Expired: ms(250)},
		{Replica: 2, Token: "c", First: ms(200), Last: ms(300), Tries: 2, Acquired: ms(300), Released: ms(330.002)},
		{Replica: -1, Token: "d", First: ms(310), Last: ms(320), Tries: 2},
	}
	// Redis's clock 1 s ahead of hammer's.
	got := l.claims(1e9)
	for i := range want {
		for _, p := range []*int64{&want[i].First, &want[i].Last, &want[i].Acquired, &want[i].Released, &want[i].Expired} {
			if *p != 0 {
				*p -= 1e9
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("claims:\ngot  %+v\nwant %+v", got, want)
	}
}

// TestStampNanos reads MONITOR's timestamps to the nanosecond, without
// the rounding of a float.
func TestStampNanos(t *testing.T) {
	for in, want := range map[string]int64{"1796455622.272138": 1796455622272138000, "5": 5e9, "1.5": 1.5e9} {
		if got, ok := stampNanos(in); !ok || got != want {
			t.Errorf("stampNanos(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"x.1", "1.x", "1.1234567890", "1.-5"} {
		if _, ok := stampNanos(bad); ok {
			t.Errorf("stampNanos(%q) took it", bad)
		}
	}
}
