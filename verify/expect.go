package verify

import (
	"fmt"
	"strings"

	"github.com/hammer-load/hammer/scenarios"
)

// Expect compares a verdict with a run's expectation. Safe holds when the
// verdict is Valid. Unsafe (a negative control) holds only when the verdict
// shows a safety violation: a control that stays correct has lost the
// ability to detect one (see Unshown). No expectation ("") holds when the
// verdict is Valid. An Unknown verdict never holds. The reason is one
// sentence for a user either way.
func Expect(v Verdict, e scenarios.Expectation) (ok bool, reason string) {
	if v.Status == Unknown {
		return false, fmt.Sprintf("%s, but the outcome could not be determined: %s",
			expected(e), strings.Join(v.Undetermined, "; "))
	}
	switch e {
	case scenarios.Safe, "":
		return expectValid(v, e)
	case scenarios.Unsafe:
		return expectOversell(v)
	}
	return false, fmt.Sprintf("unrecognised expectation %q (want %q, %q or none)",
		e, scenarios.Safe, scenarios.Unsafe)
}

// Unshown reports whether a run whose expectation did not hold could not
// show either way, rather than missed it: its verdict is Unknown, or it
// expected unsafe and broke nothing (Valid). A negative control that
// stays correct proves no strategy wrong: its race may not have contended
// at the moment that matters (timing, a loaded machine), or the strategy
// is safe here, and one run cannot tell which. Only a determined verdict
// against its expectation is a miss: an Invalid run expected safe, or a
// negative control that broke something other than safety.
func Unshown(s Status, e scenarios.Expectation) bool {
	return s == Unknown || (e == scenarios.Unsafe && s == Valid)
}

// expected names an expectation for the start of a reason.
func expected(e scenarios.Expectation) string {
	switch e {
	case "":
		return "no expectation"
	case scenarios.Unsafe:
		return "expected an oversell"
	}
	return fmt.Sprintf("expected %s", e)
}

// expectValid judges a Safe expectation, or none, against a determined verdict.
func expectValid(v Verdict, e scenarios.Expectation) (bool, string) {
	if v.Status == Valid {
		return true, fmt.Sprintf("%s: every check passed, sold %d of %d", expected(e), v.Sold, v.Seats)
	}
	return false, fmt.Sprintf("%s, but the run is %s", expected(e), v.Summary())
}

// expectOversell judges an Unsafe expectation against a determined verdict:
// it holds when the run broke the inventory's safety (an oversell, a seat
// sold twice, a lost update) or the lock's (overlapping holders). Errors, a
// stuck lock or a bookkeeping mismatch are failures too, but not the
// unsafety a negative control must show.
func expectOversell(v Verdict) (bool, string) {
	var seen []Violation
	for _, x := range v.Violations {
		switch x.Check {
		case CheckOversell, CheckConservation, CheckDoubleSold, CheckMutualExclusion:
			seen = append(seen, x)
		}
	}
	switch {
	case len(seen) > 0 && v.Oversold > 0:
		return true, fmt.Sprintf("expected an oversell and saw one: sold %d of %d", v.Sold, v.Seats)
	case len(seen) > 0:
		return true, fmt.Sprintf("expected unsafety and saw it: %s", summarizeViolations(Verdict{Violations: seen, Sold: v.Sold, Seats: v.Seats}))
	case v.Status == Invalid:
		return false, fmt.Sprintf(
			"detection lost: expected an oversell but sold %d of %d; a negative control must be seen breaking safety, and this run only shows %s",
			v.Sold, v.Seats, summarizeViolations(v))
	case v.Sold == v.Seats:
		return false, fmt.Sprintf(
			"detection lost: expected an oversell, but sold exactly %d of %d and broke nothing, so this run cannot show that its race sees the bug: %s",
			v.Sold, v.Seats, unshownAdvice)
	}
	return false, fmt.Sprintf(
		"detection lost: expected an oversell, but sold only %d of %d and broke nothing, so this run cannot show that its race sees the bug: %s",
		v.Sold, v.Seats, unshownAdvice)
}

// unshownAdvice ends the reason of a negative control that broke nothing.
const unshownAdvice = "its contenders may not have met when it mattered (run it again), or this strategy is safe here (expect it safe)"
