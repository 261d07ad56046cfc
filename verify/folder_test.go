package verify

import (
	"testing"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// stamp sets the run of every record in r and returns them.
func stamp(r *race, run string) ([]history.Attempt, []history.Sale) {
	for i := range r.attempts {
		r.attempts[i].Run = run
	}
	for i := range r.sales {
		r.sales[i].Run = run
	}
	return r.attempts, r.sales
}

func TestRuns(t *testing.T) {
	noneAttempts, noneSales := stamp(oversold(), "none")
	safeAttempts, safeSales := stamp(new(race).sold(1, 10).refused(5, history.SoldOut), "update-only")
	f := history.Log{
		Manifest: history.Manifest{
			Schema: history.ManifestSchema,
			Runs: []history.Run{
				{Name: "none", Mode: "none", Seats: 100, Expected: scenarios.Unsafe},
				{Name: "update-only", Mode: "update-only", Seats: 10, Expected: scenarios.Safe},
			},
		},
		Records: history.Records{
			Attempts: append(append([]history.Attempt{}, noneAttempts...), safeAttempts...),
			Sales:    append(append([]history.Sale{}, noneSales...), safeSales...),
			Sectors: []history.Sector{
				{Run: "update-only", ID: 2, Capacity: 50, Available: 50},
				{Run: "none", ID: 1, Capacity: 100, Available: 0},
				{Run: "update-only", ID: 1, Capacity: 10, Available: 0},
			},
		},
	}
	got := Runs(folder.New(f, nil).Runs())
	want := []struct {
		run      string
		status   Status
		sold     int
		oversold int
		expectOK bool
	}{
		{run: "none", status: Invalid, sold: 103, oversold: 3, expectOK: true},
		{run: "update-only", status: Valid, sold: 10, oversold: 0, expectOK: true},
	}
	if len(got) != len(want) {
		t.Fatalf("Runs() returned %d runs, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Run.Name != w.run || g.Verdict.Status != w.status || g.Verdict.Sold != w.sold ||
			g.Verdict.Oversold != w.oversold || g.ExpectOK != w.expectOK {
			t.Errorf("Runs()[%d] = %s %s sold %d oversold %d ok %v (%s), want %s %s sold %d oversold %d ok %v",
				i, g.Run.Name, g.Verdict.Status, g.Verdict.Sold, g.Verdict.Oversold, g.ExpectOK, g.ExpectReason,
				w.run, w.status, w.sold, w.oversold, w.expectOK)
		}
	}
}

func TestPickSector(t *testing.T) {
	tests := []struct {
		name    string
		sectors []history.Sector
		wantID  int // 0: want nil
	}{
		{name: "none", sectors: nil, wantID: 0},
		{name: "only one, whatever its id", sectors: []history.Sector{{ID: 7}}, wantID: 7},
		{name: "several, id 1 wins", sectors: []history.Sector{{ID: 2}, {ID: 1}, {ID: 3}}, wantID: 1},
		{name: "several without id 1", sectors: []history.Sector{{ID: 2}, {ID: 3}}, wantID: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pickSector(tt.sectors)
			switch {
			case tt.wantID == 0 && got != nil:
				t.Errorf("pickSector() = sector %d, want nil", got.ID)
			case tt.wantID != 0 && got == nil:
				t.Errorf("pickSector() = nil, want sector %d", tt.wantID)
			case got != nil && got.ID != tt.wantID:
				t.Errorf("pickSector() = sector %d, want sector %d", got.ID, tt.wantID)
			}
		})
	}
}
