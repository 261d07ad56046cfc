package verify

import (
	"strings"
	"testing"

	"github.com/hammer-load/hammer/scenarios"
)

// The verdicts to judge against expectations.
func validFull() Verdict    { return Verdict{Status: Valid, Seats: 100, Sold: 100} }
func validPartial() Verdict { return Verdict{Status: Valid, Seats: 100, Sold: 97} }

func oversoldRun() Verdict {
	return Verdict{Status: Invalid, Seats: 100, Sold: 137, Oversold: 37,
		Violations: []Violation{{Check: CheckOversell, Detail: "sold 137 of 100 seats: 37 more than exist"}}}
}

func doubleSoldRun() Verdict {
	return Verdict{Status: Invalid, Seats: 100, Sold: 100,
		Violations: []Violation{{Check: CheckDoubleSold, Detail: "seat 5 sold 2 times (requests a, b)"}}}
}

func unknownRun() Verdict {
	return Verdict{Status: Unknown, Seats: 100, Sold: 80,
		Undetermined: []string{"history incomplete: worker 2 died"}}
}

func TestExpect(t *testing.T) {
	tests := []struct {
		name       string
		v          Verdict
		e          scenarios.Expectation
		wantOK     bool
		wantReason string // the reason must contain this
	}{
		{name: "safe/valid", v: validFull(), e: scenarios.Safe, wantOK: true,
			wantReason: "expected safe: every check passed, sold 100 of 100"},
		{name: "safe/invalid", v: oversoldRun(), e: scenarios.Safe, wantOK: false,
			wantReason: "expected safe, but the run is invalid: oversell (sold 137 of 100)"},
		{name: "safe/unknown", v: unknownRun(), e: scenarios.Safe, wantOK: false,
			wantReason: "expected safe, but the outcome could not be determined: history incomplete: worker 2 died"},
		{name: "unsafe/valid sold out", v: validFull(), e: scenarios.Unsafe, wantOK: false,
			wantReason: "detection lost: expected an oversell, but sold exactly 100 of 100 and broke nothing, so this run cannot show that its race sees the bug"},
		{name: "unsafe/valid not sold out", v: validPartial(), e: scenarios.Unsafe, wantOK: false,
			wantReason: "detection lost: expected an oversell, but sold only 97 of 100 and broke nothing"},
		{name: "unsafe/invalid with oversell", v: oversoldRun(), e: scenarios.Unsafe, wantOK: true,
			wantReason: "expected an oversell and saw one: sold 137 of 100"},
		{name: "unsafe/double sale without oversell", v: doubleSoldRun(), e: scenarios.Unsafe, wantOK: true,
			wantReason: "expected unsafety and saw it: double-sold (1 seat: 5)"},
		{name: "unsafe/only errors", v: Verdict{Status: Invalid, Sold: 100, Seats: 100,
			Violations: []Violation{{Check: CheckUnexpectedError, Detail: "1 attempt failed with an error in a run without faults: x"}}},
			e: scenarios.Unsafe, wantOK: false,
			wantReason: "detection lost: expected an oversell but sold 100 of 100; a negative control must be seen breaking safety, and this run only shows unexpected-error"},
		{name: "unsafe/unknown", v: unknownRun(), e: scenarios.Unsafe, wantOK: false,
			wantReason: "expected an oversell, but the outcome could not be determined"},
		{name: "none/valid", v: validPartial(), e: "", wantOK: true,
			wantReason: "no expectation: every check passed, sold 97 of 100"},
		{name: "none/invalid", v: doubleSoldRun(), e: "", wantOK: false,
			wantReason: "no expectation, but the run is invalid: double-sold"},
		{name: "none/unknown", v: unknownRun(), e: "", wantOK: false,
			wantReason: "no expectation, but the outcome could not be determined"},
		{name: "unrecognised expectation", v: validFull(), e: "maybe", wantOK: false,
			wantReason: `unrecognised expectation "maybe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, reason := Expect(tt.v, tt.e)
			if ok != tt.wantOK {
				t.Errorf("Expect(%s, %q) ok = %v, want %v (reason %q)", tt.v.Status, tt.e, ok, tt.wantOK, reason)
			}
			if !strings.Contains(reason, tt.wantReason) {
				t.Errorf("Expect(%s, %q) reason = %q, want it to contain %q", tt.v.Status, tt.e, reason, tt.wantReason)
			}
		})
	}
}

// TestUnshown pins which misses are the world's (exit 3) and which a
// strategy's (exit 1): a negative control that broke nothing proves no
// strategy wrong, one that broke something else does.
func TestUnshown(t *testing.T) {
	tests := []struct {
		v    Verdict
		e    scenarios.Expectation
		want bool
	}{
		{validFull(), scenarios.Unsafe, true},
		{validPartial(), scenarios.Unsafe, true},
		{unknownRun(), scenarios.Unsafe, true},
		{unknownRun(), scenarios.Safe, true},
		{unknownRun(), "", true},
		{oversoldRun(), scenarios.Safe, false},
		{doubleSoldRun(), "", false},
		{Verdict{Status: Invalid, Violations: []Violation{{Check: CheckUnexpectedError}}}, scenarios.Unsafe, false},
	}
	for _, tt := range tests {
		if got := Unshown(tt.v.Status, tt.e); got != tt.want {
			t.Errorf("Unshown(%s, %q) = %v, want %v", tt.v.Status, tt.e, got, tt.want)
		}
	}
}
