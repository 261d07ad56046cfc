package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/scenarios"
)

// writeMarkdown writes report.md: the verdict first, then how the run was
// made, the latency percentiles, the outcomes, what went wrong, what each
// checker said (with a link to porcupine's drawing of each run in pages,
// by run) and the charts. It reads well as a CI job summary.
func writeMarkdown(w io.Writer, s Summary, charts []folder.Chart, pages map[string]string) error {
	var b strings.Builder
	title := "hammer"
	if s.Command != "" {
		title += " " + s.Command
	}
	fmt.Fprintf(&b, "# %s — %s\n\n", title, s.RunID)
	fmt.Fprintf(&b, "%s\n\n", headline(s))
	writeVerdicts(&b, s)
	writeManifest(&b, s)
	writeLatency(&b, s)
	writeOutcomes(&b, s)
	writeServiceLock(&b, s)
	writeProblems(&b, s)
	writeCheckers(&b, s, pages)
	writeAgents(&b, s)
	writeReplicaLogs(&b, s)
	if len(charts) > 0 {
		b.WriteString("## Charts\n\n")
		for _, c := range charts {
			fmt.Fprintf(&b, "### %s\n\n![%s](%s)\n\n", c.Title, c.Title, c.PNG())
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// libraries are the lock libraries the folder's runs took instead of
// hammer's own lock, in the order the runs name them.
func libraries(s Summary) []scenarios.Lock {
	var out []scenarios.Lock
	for _, r := range s.Runs {
		if r.Lock.Library() && !slices.Contains(out, r.Lock) {
			out = append(out, r.Lock)
		}
	}
	return out
}

// headline is the one-line verdict of the whole folder.
func headline(s Summary) string {
	h := folderHeadline(s)
	return fmt.Sprintf("**%s** (exit %d): %s", h.label, s.ExitCode, h.text)
}

// verdictLine is the verdict of a whole folder: PASS, FAIL or UNKNOWN,
// and what it means in a sentence.
type verdictLine struct{ label, text string }

// folderHeadline is the verdict of the whole folder, which report.md's
// headline and report.html's banner both show.
func folderHeadline(s Summary) verdictLine {
	switch s.ExitCode {
	case 0:
		return verdictLine{"PASS", fmt.Sprintf("every one of %d runs is as expected.", len(s.Runs))}
	case 1:
		failed := 0
		for _, r := range s.Runs {
			if r.missed() {
				failed++
			}
		}
		return verdictLine{"FAIL", fmt.Sprintf("%d of %d runs broke a safety property or missed their expectation.", failed, len(s.Runs))}
	}
	return verdictLine{"UNKNOWN", "the outcome of at least one run could not be determined."}
}

func writeVerdicts(b *strings.Builder, s Summary) {
	b.WriteString("| run | contenders | sold/seats | oversold | p50 | p99 | sellout | floor | efficiency | start skew | peak in flight | expected | verdict |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, r := range s.Runs {
		expected := string(r.Expected)
		if expected == "" {
			expected = "–"
		}
		fmt.Fprintf(b, "| `%s` | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |\n",
			r.Name, r.Contenders, soldCell(r), oversoldCell(r), fmtMs(r.P50Ms), fmtMs(r.P99Ms),
			fmtSellout(r.SelloutMs), fmtFloor(r.FloorMs), fmtEff(r.Efficiency), fmtSkew(r), r.PeakInFlight, expected, verdictCell(r))
	}
	writeFloorNote(b, s)
	writeStartNote(b, s)
	writeCPUNote(b, s)
	for _, sk := range s.Skipped {
		fmt.Fprintf(b, "\nSkipped: %s\n", sk)
	}
	b.WriteString("\n")
}

func writeManifest(b *strings.Builder, s Summary) {
	b.WriteString("## How it ran\n\n| | |\n|---|---|\n")
	for _, r := range manifestRows(s) {
		fmt.Fprintf(b, "| %s | %s |\n", r[0], r[1])
	}
	b.WriteString("\n")
}

// manifestRows are the rows of the table of how the folder's runs were
// made, as (what, value) with Markdown's backticks around names; rows
// without a value are left out.
func manifestRows(s Summary) [][2]string {
	var out [][2]string
	row := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	e := s.Env
	hammer := e.Hammer
	if e.Revision != "" {
		hammer += " (" + e.Revision + ")"
	}
	row("seed", fmt.Sprint(s.Seed))
	row("hammer", hammer)
	row("Go", e.Go)
	row("Redis", e.Redis)
	row("PostgreSQL", e.PostgreSQL)
	row("stack", s.Stack)
	row("PostgreSQL fsync", e.Fsync)
	for _, n := range s.StackNotes {
		row("note", n)
	}
	if len(s.Runs) > 0 {
		r := s.Runs[0]
		row("processes × goroutines", fmt.Sprintf("%d × %d", r.Procs, r.Goroutines))
		row("seats", fmt.Sprint(r.Seats))
	}
	for _, l := range libraries(s) {
		row("lock library", fmt.Sprintf("%s (%s): the runs named `+%s`", l, l.Module(), l))
	}
	if e.Target != "" {
		row("service", fmt.Sprintf("%s, %s", e.Target, plural(e.Replicas, "replica")))
	} else if e.PoolSize > 0 {
		row("PostgreSQL pool", fmt.Sprintf("%d connections per worker process", e.PoolSize))
	}
	if e.Target == "" && e.RedisPool > 0 {
		row("Redis pool", fmt.Sprintf("%d connections per worker process", e.RedisPool))
	}
	if e.Cores > 0 {
		row("host cores", fmt.Sprint(e.Cores))
	}
	return out
}

func writeLatency(b *strings.Builder, s Summary) {
	b.WriteString("## Latency (ms)\n\n")
	if slices.ContainsFunc(s.Runs, func(r RunSummary) bool { return r.Model == "closed" }) {
		b.WriteString("> Closed model: every contender fires once at the go signal and the next attempt waits for the " +
			"previous one, so these latencies are exposed to coordinated omission — a stall delays the attempts " +
			"instead of showing up in their latency. Use `hammer run --rate N --duration D` for an open model timed " +
			"from each attempt's intended start.\n\n")
	}
	if slices.ContainsFunc(s.Runs, func(r RunSummary) bool { return r.Model == "open" }) {
		b.WriteString("> Open model: attempts are issued at a fixed rate and each one's latency counts from its " +
			"intended start, so time spent waiting for a free contender is included (no coordinated omission).\n\n")
	}
	if slices.ContainsFunc(s.Runs, func(r RunSummary) bool {
		return slices.ContainsFunc(r.Latency, func(l latency.Summary) bool { return l.Phase == latency.Handoff })
	}) {
		b.WriteString("> Lock handoff is counted per handoff, not per attempt: from a holder sending its release to " +
			"the next holder, who was already waiting, having the lock — how long the lock sat free while " +
			"someone wanted it. Waiters wake on a release announcement; the lock is still taken with SET NX PX.\n\n")
	}
	b.WriteString("| run | phase | count | min | p50 | p90 | p99 | p99.9 | max | mean |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range s.Runs {
		for _, l := range r.Latency {
			fmt.Fprintf(b, "| `%s` | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Name, phaseName(l.Phase), l.Count,
				num(l.Min), num(l.P50), num(l.P90), num(l.P99), num(l.P999), num(l.Max), num(l.Mean))
		}
	}
	b.WriteString("\n")
}

func phaseName(p latency.Phase) string {
	switch p {
	case latency.LockWait:
		return "lock wait"
	case latency.Handoff:
		return "lock handoff (release sent → next holder)"
	case latency.Critical:
		return "critical section"
	case latency.Release:
		return "release"
	}
	return "whole attempt"
}

func writeOutcomes(b *strings.Builder, s Summary) {
	b.WriteString("## Outcomes\n\n| run | sold | sold out | lock timeout | rejected | error | unknown | wins by process |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range s.Runs {
		fmt.Fprintf(b, "| `%s` | %d | %d | %d | %d | %d | %d | %s |\n", r.Name,
			r.Outcomes["sold"], r.Outcomes["sold_out"], r.Outcomes["lock_timeout"], r.Outcomes["rejected"],
			r.Outcomes["error"], r.Outcomes["unknown"], wins(r.WinsByProcess))
	}
	b.WriteString("\n")
}

// wins renders sales per process as "p0 12 · p1 8".
func wins(m map[string]int) string {
	procs := make([]string, 0, len(m))
	for p := range m {
		procs = append(procs, p)
	}
	slices.SortFunc(procs, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return cmp.Compare(x, y)
	})
	parts := make([]string, 0, len(procs))
	for _, p := range procs {
		parts = append(parts, fmt.Sprintf("p%s %d", p, m[p]))
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, " · ")
}

// writeProblems lists, per run that needs it, the failed expectation, the
// violations with their stories and why a verdict is unknown.
func writeProblems(b *strings.Builder, s Summary) {
	var d strings.Builder
	for _, r := range s.Runs {
		writeDetails(&d, r, limits{lines: 20, stories: 3})
	}
	if d.Len() == 0 {
		return
	}
	fmt.Fprintf(b, "## What went wrong\n\nEvery violation with its story is in `%s`; the first ones:\n\n```", folder.ViolationsFile)
	b.WriteString(d.String())
	b.WriteString("```\n\n")
}

// num renders milliseconds with a precision that suits their size.
func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
