package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/report/chart"
)

// Outputs says which of the optional outputs Write writes.
type Outputs struct {
	// JUnit, if set, names the suite of junit.xml.
	JUnit string
	// NoCharts leaves the charts out (an interrupted run, which must end
	// at once); `hammer report DIR` draws them later.
	NoCharts bool
}

// Write renders the summary s of the results folder f into dir:
// summary.json, violations.txt, the charts, porcupine's drawing of each
// run it checked, report.md, report.html and junit.xml, as o says.
func Write(dir string, f *folder.Folder, s Summary, o Outputs) error {
	if err := saveSummary(dir, s); err != nil {
		return err
	}
	var written []string
	var data *chart.Data
	if !o.NoCharts {
		d := chart.Build(f)
		var err error
		if written, err = chart.Write(dir, d); err != nil {
			return fmt.Errorf("charts: %w", err)
		}
		data = &d
	}
	var charts []folder.Chart
	for _, c := range folder.Charts() {
		if slices.Contains(written, c.PNG()) {
			charts = append(charts, c)
		}
	}
	pages, err := writeHistories(dir, s)
	if err != nil {
		return fmt.Errorf("porcupine's drawings: %w", err)
	}
	if err := writeFile(filepath.Join(dir, folder.ReportFile), func(b *strings.Builder) error { return writeMarkdown(b, s, charts, pages) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, folder.HTMLFile), func(b *strings.Builder) error {
		return writeHTML(b, htmlInput{s: s, f: f, charts: data, pages: pages})
	}); err != nil {
		return fmt.Errorf("%s: %w", folder.HTMLFile, err)
	}
	if o.JUnit != "" {
		return saveJUnit(dir, s, o.JUnit)
	}
	return nil
}

func writeFile(path string, write func(*strings.Builder) error) error {
	var b strings.Builder
	if err := write(&b); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
