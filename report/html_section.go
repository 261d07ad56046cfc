package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/verify"
)

// The most a run's section shows: stories drawn, and problems listed
// (each with its story's text). Every one is in violations.txt, so that
// a run with thousands of seats sold twice keeps the page small.
const (
	maxPictures = 5
	maxProblems = 20
)

// section is one run's part of report.html.
type section struct {
	Name, Anchor  string
	Verdict       string
	VerdictClass  string
	ExpectClass   string
	ExpectReason  string
	Facts         []manifestRow
	Porcupine     string
	Checkers      *verify.Checkers
	Undetermined  []string
	Notes         []string
	Problems      []problem
	MorePictures  int
	MoreProblems  int
	Latency       []latencyRow
	Outcomes      []manifestRow
	ViolationFile string
	// Holders draws the holders of a service's lock by replica; nil for
	// a run without claims on one.
	Holders *lanes
}

// problem is one violation, with its story drawn when it has one that
// an earlier violation of the run did not already tell.
type problem struct {
	Check, Detail string
	Story         []string
	// Pictures draw the story; none when it is not drawn.
	Pictures []*lanes
	// Told is set when an earlier problem told the same story.
	Told bool
}

// latencyRow is one phase's row of a run's latency table.
type latencyRow struct {
	Phase                                   string
	Count                                   int64
	Min, P50, P90, P99, P999, Max, MeanText string
}

// buildSection is run r's section: its verdict, its facts, its problems
// with their stories drawn from the folder's records, its latency and
// its outcomes.
func buildSection(r RunSummary, in htmlInput) section {
	sec := section{
		Name: r.Name, Anchor: runAnchor(r.Name), Verdict: verdictCell(r), VerdictClass: string(r.Verdict),
		ExpectClass: expectClass(r), Porcupine: in.pages[r.Name], Checkers: r.Checkers,
		Undetermined: r.Undetermined, Notes: r.Notes, ViolationFile: folder.ViolationsFile,
	}
	if r.Expected != "" {
		sec.ExpectReason = fmt.Sprintf("expected %s: %s", r.Expected, r.ExpectReason)
		if r.ExpectReason == "" {
			sec.ExpectReason = fmt.Sprintf("expected %s", r.Expected)
		}
	}
	sec.Facts = runFacts(r)
	for _, l := range r.Latency {
		sec.Latency = append(sec.Latency, latencyRow{Phase: phaseName(l.Phase), Count: l.Count, Min: num(l.Min),
			P50: num(l.P50), P90: num(l.P90), P99: num(l.P99), P999: num(l.P999), Max: num(l.Max), MeanText: num(l.Mean)})
	}
	for _, o := range []string{"sold", "sold_out", "lock_timeout", "rejected", "error", "unknown"} {
		sec.Outcomes = append(sec.Outcomes, manifestRow{strings.ReplaceAll(o, "_", " "), inlineCode(fmt.Sprint(r.Outcomes[o]))})
	}
	sec.Outcomes = append(sec.Outcomes, manifestRow{"wins by process", inlineCode(wins(r.WinsByProcess))})
	sec.Problems, sec.MorePictures = problems(r, in)
	if in.f != nil {
		v := in.f.Run(r.Name)
		sec.Holders = holderLanes(v.Run, v.Records.Locks)
	}
	if len(sec.Problems) > maxProblems {
		sec.MoreProblems = len(sec.Problems) - maxProblems
		sec.Problems = sec.Problems[:maxProblems]
	}
	return sec
}

// runFacts are the numbers of a run that its row of the verdict table
// leaves out: its model, its lock, its floor and its lock slack.
func runFacts(r RunSummary) []manifestRow {
	var out []manifestRow
	add := func(k, v string) { out = append(out, manifestRow{k, inlineCode(v)}) }
	add("mode", string(r.Mode))
	if r.Lock != "" {
		add("lock", string(r.Lock))
	}
	add("processes × goroutines", fmt.Sprintf("%d × %d", r.Procs, r.Goroutines))
	model := r.Model + " model"
	if r.Model == "open" {
		model += fmt.Sprintf(" at %g attempts/s", r.Rate)
	}
	add("model", model)
	add("elapsed", fmtMs(r.ElapsedMs))
	if r.CommitLatencyMs != nil {
		add("physical floor", fmt.Sprintf("%s (%d seats × %s commit latency); efficiency %s",
			fmtFloor(r.FloorMs), r.Seats, fmtMs(*r.CommitLatencyMs), fmtEff(r.Efficiency)))
	}
	if sl := r.LockSlack; sl != nil {
		add("lock slack (TTL − critical section)", fmt.Sprintf("min %s, p1 %s, p50 %s; %d of %d holders outlived their lock",
			fmtMs(sl.MinMs), fmtMs(sl.P1Ms), fmtMs(sl.P50Ms), sl.Expired, sl.Holders))
	}
	if len(r.ReplicaLogs) > 0 {
		out = append(out, manifestRow{"the service's logs", logsFact(r.ReplicaLogs)})
	}
	return out
}

// problems lists a run's failed expectation and violations, drawing the
// first maxPictures distinct stories; it returns how many stories were
// left undrawn.
func problems(r RunSummary, in htmlInput) ([]problem, int) {
	var out []problem
	switch {
	case r.Expected == "" || r.ExpectOK || r.Verdict == verify.Unknown:
	case r.unshown():
		out = append(out, problem{Check: "UNKNOWN", Detail: r.ExpectReason})
	default:
		out = append(out, problem{Check: "FAIL", Detail: r.ExpectReason})
	}
	var rec history.Records
	var run history.Run
	if in.f != nil {
		v := in.f.Run(r.Name)
		rec, run = v.Records, v.Run
	}
	var told []string
	drawn, undrawn := 0, 0
	for _, v := range r.Violations {
		p := problem{Check: v.Check, Detail: v.Detail, Story: v.Story}
		key := strings.Join(v.Story, "\n")
		switch {
		case len(v.Story) == 0:
		case slices.Contains(told, key):
			p.Told, p.Story = true, nil
		case drawn < maxPictures:
			told = append(told, key)
			drawn++
			p.Pictures = drawStory(run, rec, v)
		default:
			told = append(told, key)
			undrawn++
		}
		out = append(out, p)
	}
	return out, undrawn
}
