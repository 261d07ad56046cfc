package bench

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Summary is what the bench reads from a hammer summary.json. It is parsed
// on its own terms, not with hammer's report types, so that fields other
// branches add (peak_in_flight, a "handoff" phase) are picked up when a
// hammer writes them and reported as missing when it does not.
type Summary struct {
	ExitCode int          `json:"exit_code"`
	Runs     []RunFigures `json:"runs"`
}

// RunFigures are one run's figures from summary.json.
type RunFigures struct {
	Mode       string `json:"mode"`
	Contenders int    `json:"contenders"`
	Seats      int    `json:"seats"`
	Sold       int    `json:"sold"`
	Oversold   int    `json:"oversold"`
	Verdict    string `json:"verdict"`
	// Undetermined says why a verdict could not be had.
	Undetermined []string       `json:"undetermined"`
	Outcomes     map[string]int `json:"outcomes"`
	StartSkewMs  *float64       `json:"start_skew_ms"`
	ElapsedMs    *float64       `json:"elapsed_ms"`
	SelloutMs    *float64       `json:"sellout_ms"`
	// PeakInFlight is the most attempts in flight at once; nil before
	// hammer writes it.
	PeakInFlight *float64 `json:"peak_in_flight"`
	// RealtimeWorkers is how many worker processes started in a real-time
	// burst; nil before hammer writes it.
	RealtimeWorkers *float64       `json:"realtime_workers"`
	Latency         []PhaseSummary `json:"latency"`
}

// PhaseSummary is one phase's latency percentiles, in milliseconds.
type PhaseSummary struct {
	Phase string  `json:"phase"`
	Count int64   `json:"count"`
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
}

// ParseSummary reads a summary.json holding exactly one run (what `hammer
// run` writes).
func ParseSummary(data []byte) (RunFigures, error) {
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return RunFigures{}, fmt.Errorf("summary.json: %w", err)
	}
	if len(s.Runs) != 1 {
		return RunFigures{}, fmt.Errorf("summary.json: %d runs, want 1", len(s.Runs))
	}
	return s.Runs[0], nil
}

// PhaseP50 is the median latency of the phase, NA when the summary has no
// such phase (or it counted nothing).
func (r RunFigures) PhaseP50(phase string) Value {
	for _, p := range r.Latency {
		if p.Phase == phase && p.Count > 0 {
			return Known(p.P50Ms)
		}
	}
	return NA()
}

// Check returns an error unless the run is valid and sold want seats: a
// race that ran fast but wrong must not count.
func (r RunFigures) Check(want int) error {
	switch {
	case r.Verdict != "valid":
		return fmt.Errorf("verdict %s", r.Verdict)
	case r.Oversold != 0 || r.Sold != want:
		return fmt.Errorf("sold %d (oversold %d), want exactly %d", r.Sold, r.Oversold, want)
	case r.ElapsedMs == nil:
		return fmt.Errorf("summary.json has no elapsed_ms")
	}
	return nil
}

// ParseCommandStats returns the calls of each command in the output of
// Redis's INFO commandstats ("cmdstat_set:calls=12,usec=…").
func ParseCommandStats(info string) map[string]int64 {
	calls := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		name, isCmd := strings.CutPrefix(name, "cmdstat_")
		if !ok || !isCmd {
			continue
		}
		for _, field := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(field, "calls="); ok {
				var n int64
				if _, err := fmt.Sscan(v, &n); err == nil {
					calls[name] = n
				}
			}
		}
	}
	return calls
}
