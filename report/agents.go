package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
)

// AgentSummary is one agent of a run raced on agents: its clock against
// the coordinator's and how its contenders started.
type AgentSummary struct {
	Index int    `json:"index"`
	Host  string `json:"host"`
	Addr  string `json:"addr"`
	// OffsetMs is the agent's clock minus the coordinator's, true to
	// within ±UncertaintyMs (half the best ping's round trip, RTTMs).
	OffsetMs      float64 `json:"clock_offset_ms"`
	UncertaintyMs float64 `json:"clock_uncertainty_ms"`
	RTTMs         float64 `json:"rtt_ms"`
	// DriftMs is how far the offset moved by the end of the race.
	DriftMs float64 `json:"clock_drift_ms"`
	// FirstStartMs is when the agent's first contender started, after the
	// go signal; StartSkewMs the latest minus the earliest first start of
	// its own contenders. Both on the coordinator's clock, so each is
	// known to within UncertaintyMs. Null without attempts (open model:
	// no skew).
	FirstStartMs *float64 `json:"first_start_ms"`
	StartSkewMs  *float64 `json:"start_skew_ms"`
}

// agentSummaries describes the run's agents from each contender's first
// start (stats.first: nil in the open model); nil when it ran none.
func agentSummaries(run history.Run, first map[[2]int]int64) []AgentSummary {
	if len(run.Agents) == 0 {
		return nil
	}
	out := make([]AgentSummary, len(run.Agents))
	for p, ag := range run.Agents {
		s := AgentSummary{Index: ag.Index, Host: ag.Host, Addr: ag.Addr, OffsetMs: ms(time.Duration(ag.Offset)),
			UncertaintyMs: ms(time.Duration(ag.Uncertainty)), RTTMs: ms(time.Duration(ag.RTT)), DriftMs: ms(time.Duration(ag.Drift))}
		if lo, hi, ok := startSpan(first, func(proc int) bool { return proc == p }); ok {
			start, skew := ms(time.Duration(lo-run.GoAt)), ms(time.Duration(hi-lo))
			s.FirstStartMs, s.StartSkewMs = &start, &skew
		}
		out[p] = s
	}
	return out
}

// writeAgents writes report.md's section on the agents of the runs that
// raced on them; nothing for runs without.
func writeAgents(b *strings.Builder, s Summary) {
	var rows strings.Builder
	for _, r := range s.Runs {
		for _, a := range r.Agents {
			fmt.Fprintf(&rows, "| `%s` | %d | %s (%s) | %+.3f ± %.3f | %.3f | %.3f | %s | %s |\n", r.Name, a.Index, strings.ReplaceAll(a.Host, "|", "\\|"), a.Addr,
				a.OffsetMs, a.UncertaintyMs, a.DriftMs, a.RTTMs, fmtOptMs(a.FirstStartMs), fmtOptMs(a.StartSkewMs))
		}
	}
	if rows.Len() == 0 {
		return
	}
	b.WriteString("## Agents\n\n")
	b.WriteString("Each worker ran on an agent. Its clock was estimated against the coordinator's just before the race " +
		"(the best of several pings: offset ± half its round trip) and again after it (the drift), its go signal set on its own clock, " +
		"and every instant it recorded moved onto the coordinator's timeline.\n\n")
	b.WriteString("| run | agent | host | clock offset (ms) | drift during the race (ms) | round trip (ms) | first start after go (ms) | its start skew (ms) |\n")
	b.WriteString("|---|---:|---|---:|---:|---:|---:|---:|\n")
	b.WriteString(rows.String())
	b.WriteString("\n")
}

// fmtOptMs is a duration in ms, or "–" when unknown.
func fmtOptMs(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *v)
}
