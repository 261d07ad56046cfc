package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/escape"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/linearize"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

// summarySchema is the version of the summary.json format.
const summarySchema = "hammer.summary/v1"

// Summary is summary.json: the verdict of every run of a results folder.
type Summary struct {
	Schema     string       `json:"schema"`
	RunID      string       `json:"run_id"`
	Command    string       `json:"command,omitempty"`
	Seed       uint64       `json:"seed"`
	Stack      string       `json:"stack"`
	Env        history.Env  `json:"env"`
	StackNotes []string     `json:"stack_notes,omitempty"`
	Runs       []RunSummary `json:"runs"`
	// Skipped names the scenarios this stack could not run, with why.
	Skipped []string `json:"skipped,omitempty"`
	// ExitCode is the code hammer exited with for this folder.
	ExitCode int `json:"exit_code"`
}

// RunSummary is one run's line of the verdict table, with its evidence.
type RunSummary struct {
	Name string         `json:"name"`
	Mode scenarios.Mode `json:"mode"`
	// Lock is the lock the contenders took in a mode with a lock
	// (history.Run.Lock): "hammer", "redsync" or "redislock".
	Lock       scenarios.Lock `json:"lock,omitempty"`
	Procs      int            `json:"procs"`
	Goroutines int            `json:"goroutines"`
	Contenders int            `json:"contenders"`
	Seats      int            `json:"seats"`
	Sold       int            `json:"sold"`
	Oversold   int            `json:"oversold"`
	// LedgerUnread is set when the ledger could not be read back: Sold and
	// Oversold then count nothing.
	LedgerUnread bool `json:"ledger_unread,omitempty"`
	// LedgerTruncated is set when only the ledger's first rows were read:
	// Sold and Oversold count at least that many.
	LedgerTruncated bool                  `json:"ledger_truncated,omitempty"`
	Verdict         verify.Status         `json:"verdict"`
	Expected        scenarios.Expectation `json:"expected,omitempty"`
	ExpectOK        bool                  `json:"expectation_met"`
	ExpectReason    string                `json:"expectation,omitempty"`
	Violations      []verify.Violation    `json:"violations"`
	Notes           []string              `json:"notes,omitempty"`
	Undetermined    []string              `json:"undetermined,omitempty"`
	Outcomes        map[string]int        `json:"outcomes"`
	P50Ms           float64               `json:"latency_p50_ms"`
	P99Ms           float64               `json:"latency_p99_ms"`
	StartSkewMs     float64               `json:"start_skew_ms"`
	// PeakInFlight is the most attempts in flight at once, across all
	// processes: how many contenders the start really had racing together.
	PeakInFlight int `json:"peak_in_flight"`
	// RealtimeWorkers is how many of the Procs worker processes started
	// their contenders in a real-time burst (history.Run.RealtimeWorkers).
	RealtimeWorkers int `json:"realtime_workers"`
	// WorkerGoMaxProcs is the largest GOMAXPROCS a worker process raced
	// with (history.Run.WorkerGoMaxProcs); absent from older runs.
	WorkerGoMaxProcs int `json:"worker_gomaxprocs,omitempty"`
	// Agents are the agents the run's workers ran on, by process; absent
	// when they were the coordinator's child processes.
	Agents []AgentSummary `json:"agents,omitempty"`
	// ElapsedMs is from the go signal to the last attempt's answer.
	ElapsedMs float64 `json:"elapsed_ms"`
	// SelloutMs is null when the sector never sold out.
	SelloutMs *float64 `json:"sellout_ms"`
	// Floor is the run's physical floor and its efficiency against it.
	Floor
	// LockSlack is the distribution of lock TTL minus critical-section
	// time over the lock holders; absent for modes without a lock.
	LockSlack *Slack `json:"lock_slack,omitempty"`
	// Model is "closed" (every contender fires at the go signal) or "open"
	// (attempts issued at Rate per second, timed from their intended start).
	Model string  `json:"model"`
	Rate  float64 `json:"rate,omitempty"`
	// Latency is the percentile table of every phase, all outcomes merged,
	// from the HDR histograms.
	Latency []latency.Summary `json:"latency"`
	// WinsByProcess counts the sales of each worker process.
	WinsByProcess map[string]int `json:"wins_by_process"`
	// ReplicaLogs are the logs of the replicas of a user's service: each
	// one's file in the folder, its size and its last lines.
	ReplicaLogs []history.ReplicaLog `json:"replica_logs,omitempty"`
	// Checkers is what hammer's checks and porcupine each said of the run
	// and whether they agree; absent for a summary of runs checked once.
	Checkers *verify.Checkers `json:"checkers,omitempty"`
	// ServiceLock is what Redis's MONITOR showed of a user's service's
	// lock; absent for hammer's own strategies and a service without one.
	ServiceLock *ServiceLock `json:"service_lock,omitempty"`
	// linearization is porcupine's check of the run, which Write draws;
	// nil in a summary read back from summary.json.
	linearization *linearize.Result
	// gaps are what an invalid run's checks could not judge, and why
	// (verify.Verdict.Gaps), which report.html's banner lists; Notes
	// holds them too.
	gaps []string
}

// Slack summarises lock slack in milliseconds. Small slack is the risk, so
// the tail is the low end: P1Ms is the slack 99% of holders had more of.
// Expired counts holders whose critical section outlived the TTL.
type Slack struct {
	Holders int     `json:"holders"`
	MinMs   float64 `json:"min_ms"`
	P1Ms    float64 `json:"p1_ms"`
	P50Ms   float64 `json:"p50_ms"`
	Expired int     `json:"expired"`
}

func slack(ds []time.Duration) *Slack {
	if len(ds) == 0 {
		return nil
	}
	s := &Slack{Holders: len(ds), MinMs: ms(slices.Min(ds)), P1Ms: ms(percentile(ds, 0.01)), P50Ms: ms(percentile(ds, 0.50))}
	for _, d := range ds {
		if d < 0 {
			s.Expired++
		}
	}
	return s
}

// Build summarises the verified runs of a results folder: verdicts are
// what package verify made of its runs, exitCode the code hammer exits
// with for them, which summary.json records.
func Build(f *folder.Folder, verdicts []verify.RunVerdict, exitCode int) Summary {
	s := Summary{
		Schema: summarySchema, RunID: f.Manifest.RunID, Command: f.Manifest.Command, Seed: f.Manifest.Seed,
		Stack: f.Manifest.Stack, Env: f.Manifest.Env, StackNotes: f.Manifest.StackNotes, Skipped: f.Manifest.Skipped,
		ExitCode: exitCode,
	}
	for _, rv := range verdicts {
		s.Runs = append(s.Runs, buildRun(rv, f.Run(rv.Run.Name).Records.Attempts, f.Latency))
		s.Runs[len(s.Runs)-1].ServiceLock = serviceLock(f.Run(rv.Run.Name).Records.Locks)
	}
	return s
}

// buildRun summarises one verified run.
func buildRun(rv verify.RunVerdict, attempts []history.Attempt, lat *latency.Set) RunSummary {
	st := measure(rv.Run, attempts)
	rs := RunSummary{
		Name: rv.Run.Name, Mode: rv.Run.Mode, Lock: rv.Run.Lock, Procs: rv.Run.Procs, Goroutines: rv.Run.Goroutines,
		Contenders: st.Contenders, Seats: rv.Run.Seats,
		Sold: rv.Verdict.Sold, Oversold: rv.Verdict.Oversold, LedgerUnread: rv.Verdict.LedgerUnread,
		LedgerTruncated: rv.Verdict.LedgerTruncated, Verdict: rv.Verdict.Status,
		Expected: rv.Run.Expected, ExpectOK: rv.ExpectOK, ExpectReason: rv.ExpectReason,
		Violations: rv.Verdict.Violations, Notes: rv.Verdict.Notes, Undetermined: rv.Verdict.Undetermined,
		Outcomes: map[string]int{}, WinsByProcess: map[string]int{},
		StartSkewMs: ms(st.StartSkew), PeakInFlight: st.PeakInFlight, RealtimeWorkers: rv.Run.RealtimeWorkers,
		WorkerGoMaxProcs: rv.Run.WorkerGoMaxProcs, ElapsedMs: ms(st.Elapsed),
		LockSlack: slack(st.Slack), Model: "closed", Rate: rv.Run.Rate,
		Floor: physicalFloor(rv.Run, st), Checkers: rv.Verdict.Checkers, Agents: agentSummaries(rv.Run, st.first),
		ReplicaLogs: rv.Run.ReplicaLogs,
	}
	rs.gaps = rv.Verdict.Gaps
	if rv.Linearization.CanVisualize() {
		rs.linearization = &rv.Linearization
	}
	if rv.Run.Rate > 0 {
		rs.Model = "open"
	}
	if rs.Violations == nil {
		rs.Violations = []verify.Violation{}
	}
	for o, n := range st.Outcomes {
		rs.Outcomes[string(o)] = n
	}
	for _, a := range attempts {
		if a.Outcome == history.Sold {
			rs.WinsByProcess[fmt.Sprint(a.Proc)]++
		}
	}
	if st.SoldOut {
		v := ms(st.Sellout)
		rs.SelloutMs = &v
	}
	for _, p := range latency.Phases() {
		if h := lat.Histogram(rv.Run.Name, p); h.TotalCount() > 0 {
			rs.Latency = append(rs.Latency, latency.Summarize(p, h))
		}
	}
	if whole, ok := phaseRow(rs, latency.Attempt); ok {
		rs.P50Ms, rs.P99Ms = whole.P50, whole.P99
	}
	return rs
}

// saveSummary writes summary.json and violations.txt into dir.
func saveSummary(dir string, s Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", folder.SummaryFile, err)
	}
	if err := os.WriteFile(filepath.Join(dir, folder.SummaryFile), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var details bytes.Buffer
	writeViolations(&details, s)
	return os.WriteFile(filepath.Join(dir, folder.ViolationsFile), details.Bytes(), 0o644)
}

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
		lines = append(lines, line{text: "FAIL: " + r.ExpectReason})
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
