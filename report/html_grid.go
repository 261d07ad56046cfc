package report

import (
	"slices"
	"strings"
)

// grid is a gate drawn as a table of mode × fault: one column per mode,
// one row per fault (with the cell's options), which keeps a gate's
// matrix as wide as its modes; each cell is coloured by its run's
// verdict against its expectation and links to its section.
type grid struct {
	Modes []string
	Rows  []gridRow
}

// gridRow is one fault's row of the grid.
type gridRow struct {
	Fault string
	Cells []*gridCell
}

// gridCell is one run of the grid; nil where the matrix has no run.
type gridCell struct {
	Name, Anchor, Verdict, Expected, Class string
}

// buildGrid lays the runs out as a grid of mode × fault; nil for a
// folder of fewer than two runs or runs without expectations, which a
// grid would not tell more of than the verdict table.
func buildGrid(s Summary) *grid {
	if len(s.Runs) < 2 || !slices.ContainsFunc(s.Runs, func(r RunSummary) bool { return r.Expected != "" }) {
		return nil
	}
	g := &grid{}
	var faults []string
	cells := map[[2]string]*gridCell{}
	for _, r := range s.Runs {
		mode, fault := cellOf(r)
		if !slices.Contains(g.Modes, mode) {
			g.Modes = append(g.Modes, mode)
		}
		if !slices.Contains(faults, fault) {
			faults = append(faults, fault)
		}
		expected := string(r.Expected)
		if expected == "" {
			expected = "no expectation"
		} else {
			expected = "expected " + expected
		}
		cells[[2]string{mode, fault}] = &gridCell{Name: r.Name, Anchor: runAnchor(r.Name), Verdict: string(r.Verdict),
			Expected: expected, Class: expectClass(r)}
	}
	for _, f := range faults {
		row := gridRow{Fault: f}
		for _, m := range g.Modes {
			row.Cells = append(row.Cells, cells[[2]string{m, f}])
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// cellOf splits a run's name into its grid row and column: the mode,
// and the rest of the name ("pause+extend", "none+no-hint"), "none"
// when the run has no fault.
func cellOf(r RunSummary) (mode, fault string) {
	mode = string(r.Mode)
	rest, ok := strings.CutPrefix(r.Name, mode)
	if !ok || mode == "" {
		if m, f, cut := strings.Cut(r.Name, "/"); cut {
			return m, f
		}
		return r.Name, "none"
	}
	switch {
	case rest == "":
		return mode, "none"
	case strings.HasPrefix(rest, "/"):
		return mode, rest[1:]
	}
	return mode, "none" + rest
}
