package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/report/chart"
	"github.com/hammer-load/hammer/verify"
)

// HgrmDir is the results-folder directory of the .hgrm files.
const HgrmDir = "hgrm"

// chartTitles names the charts chart.Write renders, in report order.
func chartTitles() []Chart {
	return []Chart{
		{Title: "Percentile spectrum of attempt latency", File: "latency-spectrum.png"},
		{Title: "Where time goes", File: "phases.png"},
		{Title: "Seats sold over time", File: "sold-over-time.png"},
		{Title: "Attempts per second by outcome", File: "attempts-per-second.png"},
		{Title: "Lock wait", File: "lock-wait.png"},
	}
}

// Outputs says which of the optional outputs WriteFolder writes.
type Outputs struct {
	// JUnit, if set, names the suite of junit.xml.
	JUnit string
	// NoCharts leaves the charts out (an interrupted run, which must end
	// at once); `hammer report DIR` draws them later.
	NoCharts bool
}

// WriteFolder verifies a results folder and writes everything derived from
// its records: summary.json, violations.txt, histograms.json, the .hgrm
// files, the charts, report.md and junit.xml, as o says. It returns the
// summary.
func WriteFolder(dir string, f *history.Folder, lat *latency.Set, o Outputs) (Summary, error) {
	if lat == nil {
		lat = latency.FromAttempts(f.Attempts)
	}
	s := Build(f, lat, verify.Folder(f))
	if err := Save(dir, s); err != nil {
		return s, err
	}
	if err := lat.Save(dir); err != nil {
		return s, err
	}
	if err := saveHgrms(dir, f, lat); err != nil {
		return s, err
	}
	var written []string
	if !o.NoCharts {
		var err error
		if written, err = chart.Write(dir, chart.Build(f.Manifest, f.Records, lat)); err != nil {
			return s, fmt.Errorf("charts: %w", err)
		}
	}
	var charts []Chart
	for _, c := range chartTitles() {
		if slices.Contains(written, c.File) {
			charts = append(charts, c)
		}
	}
	if err := writeFile(filepath.Join(dir, MarkdownFile), func(b *strings.Builder) error { return WriteMarkdown(b, s, charts) }); err != nil {
		return s, err
	}
	if o.JUnit != "" {
		return s, SaveJUnit(dir, s, o.JUnit)
	}
	return s, nil
}

// saveHgrms writes one .hgrm file per run and phase that has data.
func saveHgrms(dir string, f *history.Folder, lat *latency.Set) error {
	hdir := filepath.Join(dir, HgrmDir)
	if err := os.MkdirAll(hdir, 0o755); err != nil {
		return err
	}
	for _, run := range f.Manifest.Runs {
		for _, p := range latency.Phases() {
			h := lat.Histogram(run.Name, p)
			if h.TotalCount() == 0 {
				continue
			}
			if err := latency.SaveHgrm(hdir, FileName(run.Name)+"."+string(p), h); err != nil {
				return err
			}
		}
	}
	return nil
}

// FileName turns a run name such as "lock-only/pause+extend" into a file
// name: "lock-only_pause_extend".
func FileName(run string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '+' || r == ' ' {
			return '_'
		}
		return r
	}, run)
}

func writeFile(path string, write func(*strings.Builder) error) error {
	var b strings.Builder
	if err := write(&b); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
