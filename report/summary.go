package report

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/verify"
)

// SummarySchema is the version of the summary.json format.
const SummarySchema = "hammer.summary/v1"

// SummaryFile is the summary's name in a results folder.
const SummaryFile = "summary.json"

// Summary is summary.json: the verdict of every run of a results folder.
type Summary struct {
	Schema     string       `json:"schema"`
	RunID      string       `json:"run_id"`
	Seed       uint64       `json:"seed"`
	Stack      string       `json:"stack"`
	StackNotes []string     `json:"stack_notes,omitempty"`
	Runs       []RunSummary `json:"runs"`
	// ExitCode is the code hammer exited with for this folder.
	ExitCode int `json:"exit_code"`
}

// RunSummary is one run's line of the verdict table, with its evidence.
type RunSummary struct {
	Name         string              `json:"name"`
	Mode         string              `json:"mode"`
	Procs        int                 `json:"procs"`
	Goroutines   int                 `json:"goroutines"`
	Contenders   int                 `json:"contenders"`
	Seats        int                 `json:"seats"`
	Sold         int                 `json:"sold"`
	Oversold     int                 `json:"oversold"`
	Verdict      verify.Status       `json:"verdict"`
	Expected     history.Expectation `json:"expected,omitempty"`
	ExpectOK     bool                `json:"expectation_met"`
	ExpectReason string              `json:"expectation,omitempty"`
	Violations   []verify.Violation  `json:"violations"`
	Notes        []string            `json:"notes,omitempty"`
	Undetermined []string            `json:"undetermined,omitempty"`
	Outcomes     map[string]int      `json:"outcomes"`
	P50Ms        float64             `json:"latency_p50_ms"`
	P99Ms        float64             `json:"latency_p99_ms"`
	StartSkewMs  float64             `json:"start_skew_ms"`
	// SelloutMs is null when the sector never sold out.
	SelloutMs *float64 `json:"sellout_ms"`
}

// Build summarises the verified runs of a results folder.
func Build(f *history.Folder, verdicts []verify.RunVerdict) Summary {
	s := Summary{
		Schema: SummarySchema, RunID: f.Manifest.RunID, Seed: f.Manifest.Seed,
		Stack: f.Manifest.Stack, StackNotes: f.Manifest.StackNotes,
		ExitCode: verify.ExitCode(verdicts),
	}
	for _, rv := range verdicts {
		st := Compute(rv.Run, f.ForRun(rv.Run.Name).Attempts)
		rs := RunSummary{
			Name: rv.Run.Name, Mode: rv.Run.Mode, Procs: rv.Run.Procs, Goroutines: rv.Run.Goroutines,
			Contenders: st.Contenders, Seats: rv.Run.Seats,
			Sold: rv.Verdict.Sold, Oversold: rv.Verdict.Oversold, Verdict: rv.Verdict.Status,
			Expected: rv.Run.Expected, ExpectOK: rv.ExpectOK, ExpectReason: rv.ExpectReason,
			Violations: rv.Verdict.Violations, Notes: rv.Verdict.Notes, Undetermined: rv.Verdict.Undetermined,
			Outcomes: map[string]int{},
			P50Ms:    ms(st.P50), P99Ms: ms(st.P99), StartSkewMs: ms(st.StartSkew),
		}
		if rs.Violations == nil {
			rs.Violations = []verify.Violation{}
		}
		for o, n := range st.Outcomes {
			rs.Outcomes[string(o)] = n
		}
		if st.SoldOut {
			v := ms(st.Sellout)
			rs.SelloutMs = &v
		}
		s.Runs = append(s.Runs, rs)
	}
	return s
}

// Save writes summary.json into dir.
func Save(dir string, s Summary) error {
	return history.WriteJSON(filepath.Join(dir, SummaryFile), s)
}

// WriteTable prints the verdict table, then what went wrong in each run.
func WriteTable(w io.Writer, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODE\tCONTENDERS\tSOLD/SEATS\tOVERSOLD\tP50\tP99\tSELLOUT\tSKEW\tEXPECTED\tVERDICT")
	for _, r := range s.Runs {
		expected := string(r.Expected)
		if expected == "" {
			expected = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Name, r.Contenders, r.Sold, r.Seats, r.Oversold,
			fmtMs(r.P50Ms), fmtMs(r.P99Ms), fmtSellout(r.SelloutMs), fmtMs(r.StartSkewMs),
			expected, verdictCell(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range s.Runs {
		writeDetails(w, r)
	}
	return nil
}

func verdictCell(r RunSummary) string {
	if r.Expected == "" || r.Verdict == verify.Unknown {
		return string(r.Verdict)
	}
	if r.ExpectOK {
		return string(r.Verdict) + " (as expected)"
	}
	return string(r.Verdict) + " (FAIL)"
}

// writeDetails prints the violations, undetermined reasons and failed
// expectation of one run, if any.
func writeDetails(w io.Writer, r RunSummary) {
	var lines []string
	if r.Expected != "" && !r.ExpectOK {
		lines = append(lines, "FAIL: "+r.ExpectReason)
	}
	for _, v := range r.Violations {
		lines = append(lines, v.Check+": "+v.Detail)
	}
	for _, u := range r.Undetermined {
		lines = append(lines, "undetermined: "+u)
	}
	if len(lines) == 0 {
		return
	}
	const shown = 8
	fmt.Fprintf(w, "\n%s (%s):\n", r.Name, r.Verdict)
	for i, l := range lines {
		if i == shown {
			fmt.Fprintf(w, "  … and %d more in summary.json\n", len(lines)-shown)
			break
		}
		fmt.Fprintf(w, "  %s\n", l)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fmtMs(v float64) string {
	switch {
	case v >= 999.5:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 9.95:
		return fmt.Sprintf("%.0fms", v)
	default:
		return fmt.Sprintf("%.1fms", v)
	}
}

func fmtSellout(v *float64) string {
	if v == nil {
		return "never"
	}
	return fmtMs(*v)
}
