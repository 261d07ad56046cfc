package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/internal/escape"
	"github.com/hammer-load/hammer/verify"
)

// WriteTable prints the verdict table, then what went wrong in each run:
// at most a few lines and stories per run (summary.json and
// violations.txt hold all of them). Control characters in what it quotes
// are escaped (printable).
func WriteTable(w io.Writer, s Summary) error {
	var b strings.Builder
	if err := writeTable(&b, s); err != nil {
		return err
	}
	_, err := io.WriteString(w, escape.Lines(b.String()))
	return err
}

// writeTable writes what WriteTable prints, as it is.
func writeTable(w io.Writer, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODE\tCONTENDERS\tSOLD/SEATS\tOVERSOLD\tP50\tP99\tSELLOUT\tEFF\tSKEW\tPEAK\tEXPECTED\tVERDICT")
	for _, r := range s.Runs {
		expected := string(r.Expected)
		if expected == "" {
			expected = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n",
			r.Name, r.Contenders, soldCell(r), oversoldCell(r),
			fmtMs(r.P50Ms), fmtMs(r.P99Ms), fmtSellout(r.SelloutMs), fmtEff(r.Efficiency), fmtSkew(r), r.PeakInFlight,
			expected, verdictCell(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range s.Runs {
		if r.Model == "open" {
			fmt.Fprintf(w, "\n%s: open model at %g attempts/s; latency counts from each attempt's intended start (no coordinated omission)\n", r.Name, r.Rate)
		}
	}
	for _, r := range s.Runs {
		writeDetails(w, r, terminalLimits(r))
	}
	for _, sk := range s.Skipped {
		fmt.Fprintf(w, "\nskipped %s\n", sk)
	}
	return nil
}

// writeViolations writes violations.txt: every violation of every run,
// each with its story.
func writeViolations(w io.Writer, s Summary) {
	for _, r := range s.Runs {
		writeDetails(w, r, limits{lines: -1, stories: -1})
	}
}

// limits caps the details of one run; -1 means no cap.
type limits struct{ lines, stories int }

// terminalLimits caps the details of a run on the terminal: a run that
// broke as expected gets a glimpse, anything else more.
func terminalLimits(r RunSummary) limits {
	if r.Expected != "" && r.ExpectOK {
		return limits{lines: 3, stories: 1}
	}
	return limits{lines: 8, stories: 2}
}

func verdictCell(r RunSummary) string {
	if r.Expected == "" || r.Verdict == verify.Unknown {
		return string(r.Verdict)
	}
	if r.ExpectOK {
		return string(r.Verdict) + " (as expected)"
	}
	if r.unshown() {
		return string(r.Verdict) + " (UNKNOWN)"
	}
	return string(r.Verdict) + " (FAIL)"
}

// writeDetails prints the failed expectation, the gaps in an invalid
// run's evidence, violations (with stories) and undetermined reasons of
// one run, if any.
func writeDetails(w io.Writer, r RunSummary, l limits) {
	type line struct {
		text  string
		story []string
	}
	var lines []line
	if r.Expected != "" && !r.ExpectOK {
		head := "FAIL: "
		if r.unshown() {
			head = "UNKNOWN: "
		}
		lines = append(lines, line{text: head + r.ExpectReason})
	}
	if len(r.gaps) > 0 { // first, in one line: what the violations below do not rest on
		more := ""
		if n := len(r.gaps) - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more in %s)", n, folder.SummaryFile)
		}
		lines = append(lines, line{text: "not judged: " + r.gaps[0] + more})
	}
	for _, v := range r.Violations {
		lines = append(lines, line{text: v.Check + ": " + v.Detail, story: v.Story})
	}
	for _, u := range r.Undetermined {
		lines = append(lines, line{text: "undetermined: " + u})
	}

	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%s):\n", r.Name, r.Verdict)
	if sl := r.LockSlack; sl != nil && sl.Expired > 0 {
		fmt.Fprintf(w, "  lock slack (TTL minus critical section): min %s, p1 %s, p50 %s; %d of %d holders outlived their lock\n",
			fmtMs(sl.MinMs), fmtMs(sl.P1Ms), fmtMs(sl.P50Ms), sl.Expired, sl.Holders)
	}
	stories := 0
	told := map[string]bool{} // the oversell's story is often a double-sold seat's
	for i, ln := range lines {
		if i == l.lines {
			fmt.Fprintf(w, "  … and %d more in %s and %s\n", len(lines)-i, folder.SummaryFile, folder.ViolationsFile)
			break
		}
		fmt.Fprintf(w, "  %s\n", ln.text)
		key := strings.Join(ln.story, "\n")
		if len(ln.story) > 0 && !told[key] && (l.stories < 0 || stories < l.stories) {
			stories++
			told[key] = true
			for _, s := range ln.story {
				fmt.Fprintf(w, "      %s\n", s)
			}
		}
	}
}

// soldCell is "sold/seats", "?/seats" when the ledger was not read, or
// "≥sold/seats" when it was read only up to a limit.
func soldCell(r RunSummary) string {
	if r.LedgerUnread {
		return fmt.Sprintf("?/%d", r.Seats)
	}
	return fmt.Sprintf("%s%d/%d", atLeast(r), r.Sold, r.Seats)
}

// oversoldCell is the oversold count, "?" when the ledger was not read,
// or "≥count" when it was read only up to a limit.
func oversoldCell(r RunSummary) string {
	if r.LedgerUnread {
		return "?"
	}
	return atLeast(r) + fmt.Sprint(r.Oversold)
}

// atLeast is "≥" for a run whose ledger was read only up to a limit.
func atLeast(r RunSummary) string {
	if r.LedgerTruncated {
		return "≥"
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fmtMs(v float64) string {
	if v < 0 {
		return "-" + fmtMs(-v)
	}
	switch {
	case v >= 999.5:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 9.95:
		return fmt.Sprintf("%.0fms", v)
	default:
		return fmt.Sprintf("%.1fms", v)
	}
}

// fmtSkew is the start skew, which only the closed model has.
func fmtSkew(r RunSummary) string {
	if r.Model == "open" {
		return "-"
	}
	return fmtMs(r.StartSkewMs)
}

func fmtSellout(v *float64) string {
	if v == nil {
		return "never"
	}
	return fmtMs(*v)
}
