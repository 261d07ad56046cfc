package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
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

// unshown reports whether the run could not show whether its expectation
// holds (verify.Unshown): exit 3, not a miss.
func (r RunSummary) unshown() bool {
	return !r.ExpectOK && verify.Unshown(r.Verdict, r.Expected)
}

// missed reports whether the run's determined verdict missed its
// expectation (with none: is not valid): exit 1.
func (r RunSummary) missed() bool {
	return !r.ExpectOK && !verify.Unshown(r.Verdict, r.Expected)
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
