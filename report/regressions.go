package report

import (
	"fmt"
	"strings"

	"github.com/hammer-load/hammer/scenarios"
)

// RunChange is one run that both compared folders hold: its line in A and
// its line in B.
type RunChange struct {
	A, B RunSummary
}

// Judgement is how the runs of folder B stand against the same runs of
// folder A, judged by their expectations. Runs that only one folder holds
// are not judged (Mismatches names them).
type Judgement struct {
	// Worse are the runs that, in B, miss their expectation with a
	// determined verdict, where A did not show that same miss: they held
	// it in A, or A could not tell.
	Worse []RunChange
	// Undetermined are the runs whose expectation held in A and whose
	// verdict in B is Unknown: the comparison cannot tell whether they got
	// worse.
	Undetermined []RunChange
	// Compared is how many runs both folders hold: none, and nothing was
	// judged.
	Compared int
}

// Regressions judges folder B against folder A: a run present in both got
// worse when B has a determined verdict that misses its expectation and A
// did not miss it with a determined verdict too (it held, or A could not
// tell); it became undeterminable when it held in A and B could not show
// its expectation (unknown, or a negative control that broke nothing).
// Runs are matched by name and listed in A's order.
func Regressions(a, b Summary) Judgement {
	var j Judgement
	both := pairs(a, b)
	j.Compared = len(both)
	for _, c := range both {
		switch standing(c) {
		case worse:
			j.Worse = append(j.Worse, c)
		case undeterminable:
			j.Undetermined = append(j.Undetermined, c)
		}
	}
	return j
}

// pairs matches the runs of A and B by name, in A's order.
func pairs(a, b Summary) []RunChange {
	inB := names(b)
	var out []RunChange
	for _, ra := range a.Runs {
		if rb, ok := inB[ra.Name]; ok {
			out = append(out, RunChange{A: ra, B: rb})
		}
	}
	return out
}

// names indexes the runs of a summary by name.
func names(s Summary) map[string]RunSummary {
	m := make(map[string]RunSummary, len(s.Runs))
	for _, r := range s.Runs {
		m[r.Name] = r
	}
	return m
}

// change is how one run moved from A to B.
type change int

const (
	same           change = iota // same verdict, same standing
	changed                      // the verdict or expectation changed, the standing did not
	better                       // missed its expectation in A, holds it in B
	worse                        // a determined miss in B that A did not show
	undeterminable               // held in A, could not be shown in B
)

// standing classifies how one run moved from A to B.
func standing(c RunChange) change {
	switch {
	case c.A.ExpectOK && c.B.unshown():
		return undeterminable
	case c.B.missed() && (c.A.ExpectOK || c.A.unshown()):
		return worse
	case !c.A.ExpectOK && c.B.ExpectOK:
		return better
	case c.A.Verdict != c.B.Verdict || c.A.Expected != c.B.Expected:
		return changed
	}
	return same
}

// changeCell is the change column of the verdict table.
func changeCell(c RunChange) string {
	switch standing(c) {
	case worse:
		return "**worse: " + moved(c) + "**"
	case undeterminable:
		return "**cannot tell: " + moved(c) + "**"
	case better:
		return "better: " + moved(c)
	case changed:
		return "changed: " + moved(c)
	}
	return ""
}

// moved is how a run's verdict went from A to B, and its expectation when
// that changed too.
func moved(c RunChange) string {
	s := fmt.Sprintf("%s → %s", c.A.Verdict, c.B.Verdict)
	if c.A.Expected != c.B.Expected {
		s += ", " + expectMoved(c)
	}
	return s
}

// expectMoved is "expected unsafe → nothing".
func expectMoved(c RunChange) string {
	return fmt.Sprintf("expected %s → %s", expectName(c.A.Expected), expectName(c.B.Expected))
}

// expectName names an expectation; none is "nothing" (the run must be valid).
func expectName(e scenarios.Expectation) string {
	if e == "" {
		return "nothing"
	}
	return string(e)
}

// conclusion is the one-line verdict of a comparison.
func (j Judgement) conclusion() string {
	var s string
	if len(j.Worse) == 0 {
		s = "no run got worse"
	} else {
		s = fmt.Sprintf("B is worse than A in %s: %s", plural(len(j.Worse), "run"), listChanges(j.Worse))
	}
	if len(j.Undetermined) > 0 {
		s += fmt.Sprintf("; %s could not be determined in B: %s",
			plural(len(j.Undetermined), "run"), listChanges(j.Undetermined))
	}
	return s
}

// listChanges names runs with how their verdict moved, capped.
func listChanges(cs []RunChange) string {
	items := make([]string, len(cs))
	for i, c := range cs {
		items[i] = fmt.Sprintf("`%s` (%s)", c.A.Name, moved(c))
	}
	return capList(items, 5)
}

// Mismatches says, one sentence each, why A and B may not be comparable:
// they come from different commands (when both folders record theirs),
// they ran different matrices (runs only one of them holds, named up to a
// few), runs both hold expect different things, or they raced on another
// machine or under other conditions (see conditionMismatches). It is empty
// when nothing stands out.
func Mismatches(a, b Summary) []string {
	var out []string
	if a.Command != "" && b.Command != "" && a.Command != b.Command {
		out = append(out, fmt.Sprintf("A comes from hammer %s, B from hammer %s: their runs may not be comparable",
			a.Command, b.Command))
	}
	onlyA, onlyB := only(a, b), only(b, a)
	var parts []string
	if len(onlyA) > 0 {
		parts = append(parts, fmt.Sprintf("%s only in A: %s", plural(len(onlyA), "run"), capList(onlyA, 3)))
	}
	if len(onlyB) > 0 {
		parts = append(parts, fmt.Sprintf("%s only in B: %s", plural(len(onlyB), "run"), capList(onlyB, 3)))
	}
	if len(parts) > 0 {
		out = append(out, "A and B ran different matrices (only the runs both hold are judged): "+strings.Join(parts, "; "))
	}
	var differ []string
	for _, c := range pairs(a, b) {
		if c.A.Expected != c.B.Expected {
			differ = append(differ, fmt.Sprintf("%s (%s)", c.A.Name, expectMoved(c)))
		}
	}
	if len(differ) > 0 {
		out = append(out, fmt.Sprintf("expectations differ between A and B in %s (B is judged by its own): %s",
			plural(len(differ), "run"), capList(differ, 3)))
	}
	return append(out, conditionMismatches(a, b)...)
}

// only names the runs of x that y does not hold, in x's order.
func only(x, y Summary) []string {
	inY := names(y)
	var out []string
	for _, r := range x.Runs {
		if _, ok := inY[r.Name]; !ok {
			out = append(out, r.Name)
		}
	}
	return out
}

// capList joins at most limit items, then says how many more there are.
func capList(items []string, limit int) string {
	if len(items) <= limit {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:limit], ", "), len(items)-limit)
}

// plural is "1 run" or "n runs".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
