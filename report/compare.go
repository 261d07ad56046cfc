package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/hammer-load/hammer/internal/latency"
)

// Compare writes, as Markdown, how run B differs from run A: verdict
// changes, then the latency percentiles of every phase side by side with
// their change, for the runs both folders hold.
func Compare(w io.Writer, a, b Summary, aName, bName string) error {
	var out strings.Builder
	fmt.Fprintf(&out, "# hammer compare\n\nA: `%s` (%s)  \nB: `%s` (%s)\n\n", aName, a.RunID, bName, b.RunID)
	byName := map[string]RunSummary{}
	for _, r := range b.Runs {
		byName[r.Name] = r
	}
	out.WriteString("## Verdicts\n\n| run | A | B | sold A | sold B | |\n|---|---|---|---:|---:|---|\n")
	var both [][2]RunSummary
	for _, ra := range a.Runs {
		rb, ok := byName[ra.Name]
		if !ok {
			fmt.Fprintf(&out, "| `%s` | %s | – | %d | – | only in A |\n", ra.Name, ra.Verdict, ra.Sold)
			continue
		}
		delete(byName, ra.Name)
		both = append(both, [2]RunSummary{ra, rb})
		change := ""
		if ra.Verdict != rb.Verdict {
			change = fmt.Sprintf("**verdict changed: %s → %s**", ra.Verdict, rb.Verdict)
		}
		fmt.Fprintf(&out, "| `%s` | %s | %s | %d | %d | %s |\n", ra.Name, ra.Verdict, rb.Verdict, ra.Sold, rb.Sold, change)
	}
	for _, rb := range b.Runs {
		if _, ok := byName[rb.Name]; ok {
			fmt.Fprintf(&out, "| `%s` | – | %s | – | %d | only in B |\n", rb.Name, rb.Verdict, rb.Sold)
		}
	}
	out.WriteString("\n## Latency (ms): A → B (change)\n\n| run | phase | p50 | p90 | p99 | p99.9 | max |\n|---|---|---|---|---|---|---|\n")
	for _, pair := range both {
		for _, p := range latency.Phases() {
			la, okA := phaseRow(pair[0], p)
			lb, okB := phaseRow(pair[1], p)
			if !okA || !okB {
				continue
			}
			fmt.Fprintf(&out, "| `%s` | %s | %s | %s | %s | %s | %s |\n", pair[0].Name, phaseName(p),
				delta(la.P50, lb.P50), delta(la.P90, lb.P90), delta(la.P99, lb.P99), delta(la.P999, lb.P999), delta(la.Max, lb.Max))
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
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
