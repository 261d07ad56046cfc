package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/hammer-load/hammer/latency"
)

// Compare writes, as Markdown, how folder B differs from folder A: verdict
// changes, each run that got worse marked (see Regressions), then the
// latency percentiles of every phase side by side with their change, for
// the runs both folders hold; it ends with a one-line conclusion.
func Compare(w io.Writer, a, b Summary, aName, bName string) error {
	var out strings.Builder
	fmt.Fprintf(&out, "# hammer compare\n\nA: `%s` (%s)  \nB: `%s` (%s)\n\n", aName, a.RunID, bName, b.RunID)
	writeVerdictChanges(&out, a, b)
	out.WriteString("\n## Latency (ms): A → B (change)\n\n| run | phase | p50 | p90 | p99 | p99.9 | max |\n|---|---|---|---|---|---|---|\n")
	for _, c := range pairs(a, b) {
		for _, p := range latency.Phases() {
			la, okA := phaseRow(c.A, p)
			lb, okB := phaseRow(c.B, p)
			if !okA || !okB {
				continue
			}
			fmt.Fprintf(&out, "| `%s` | %s | %s | %s | %s | %s | %s |\n", c.A.Name, phaseName(p),
				delta(la.P50, lb.P50), delta(la.P90, lb.P90), delta(la.P99, lb.P99), delta(la.P999, lb.P999), delta(la.Max, lb.Max))
		}
	}
	fmt.Fprintf(&out, "\n**Conclusion:** %s.\n", Regressions(a, b).conclusion())
	_, err := io.WriteString(w, out.String())
	return err
}

// writeVerdictChanges writes the verdict table: A's runs in A's order,
// each with its change when B holds it too, then the runs only B holds.
func writeVerdictChanges(out *strings.Builder, a, b Summary) {
	out.WriteString("## Verdicts\n\n| run | A | B | sold A | sold B | change |\n|---|---|---|---:|---:|---|\n")
	inA, inB := names(a), names(b)
	for _, ra := range a.Runs {
		rb, ok := inB[ra.Name]
		if !ok {
			fmt.Fprintf(out, "| `%s` | %s | – | %d | – | only in A |\n", ra.Name, verdictCell(ra), ra.Sold)
			continue
		}
		fmt.Fprintf(out, "| `%s` | %s | %s | %d | %d | %s |\n", ra.Name, verdictCell(ra), verdictCell(rb),
			ra.Sold, rb.Sold, changeCell(RunChange{A: ra, B: rb}))
	}
	for _, rb := range b.Runs {
		if _, ok := inA[rb.Name]; !ok {
			fmt.Fprintf(out, "| `%s` | – | %s | – | %d | only in B |\n", rb.Name, verdictCell(rb), rb.Sold)
		}
	}
}

func phaseRow(r RunSummary, p latency.Phase) (latency.Summary, bool) {
	for _, l := range r.Latency {
		if l.Phase == p {
			return l, true
		}
	}
	return latency.Summary{}, false
}

// delta renders "a → b (+x%)".
func delta(a, b float64) string {
	if a == 0 {
		return fmt.Sprintf("%s → %s", num(a), num(b))
	}
	return fmt.Sprintf("%s → %s (%+.0f%%)", num(a), num(b), (b-a)/a*100)
}
