package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
)

// Floor is a run's physical floor, in summary.json: the shortest a
// sell-out can take when every sale commits one after the other on the
// same row, and how close the run came to it. Every field is null when it
// does not apply.
type Floor struct {
	// CommitLatencyMs is the commit latency of the race's PostgreSQL
	// measured just before the race (the median of serial single-row
	// update commits); null when the run never raced.
	CommitLatencyMs *float64 `json:"commit_latency_ms"`
	// FloorMs is seats × CommitLatencyMs.
	FloorMs *float64 `json:"floor_ms"`
	// Efficiency is FloorMs ÷ SelloutMs: 1 is a sell-out at the floor.
	// Null when the sector never sold out, and in the open model, where
	// the arrival rate sets the sell-out time.
	Efficiency *float64 `json:"efficiency"`
}

// physicalFloor is the floor of a run measured as st.
func physicalFloor(run history.Run, st stats) Floor {
	commit := time.Duration(run.CommitLatency)
	if commit <= 0 || run.Seats <= 0 {
		return Floor{}
	}
	floor := commit * time.Duration(run.Seats)
	f := Floor{CommitLatencyMs: ptr(ms(commit)), FloorMs: ptr(ms(floor))}
	if st.SoldOut && st.Sellout > 0 && run.Rate == 0 {
		f.Efficiency = ptr(math.Round(float64(floor)/float64(st.Sellout)*1000) / 1000)
	}
	return f
}

func ptr(v float64) *float64 { return &v }

// fmtEff renders an efficiency as a percentage, "-" when there is none.
func fmtEff(e *float64) string {
	switch {
	case e == nil:
		return "-"
	case *e >= 0.0995:
		return fmt.Sprintf("%.0f%%", *e*100)
	}
	return fmt.Sprintf("%.1f%%", *e*100)
}

// fmtFloor renders a floor in milliseconds, "-" when there is none.
func fmtFloor(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmtMs(*v)
}

// writeFloorNote explains the floor and efficiency columns of report.md's
// verdict table, when some run has a floor.
func writeFloorNote(b *strings.Builder, s Summary) {
	if !slices.ContainsFunc(s.Runs, func(r RunSummary) bool { return r.FloorMs != nil }) {
		return
	}
	b.WriteString("\nThe floor is the seats times the commit latency of PostgreSQL, measured just before each race " +
		"(the median of 21 serial single-row-update commits on a table of hammer's own in the race's schema): " +
		"the shortest a sell-out can take when every sale commits one after the other on the same row. " +
		"Efficiency is the floor divided by the sell-out time: 100% sells out at the floor. " +
		"A run that never sold out, or ran in the open model, has no efficiency.\n")
}
