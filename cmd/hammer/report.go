package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/report"
)

// reportCmd is `hammer report DIR` (rebuild summary, charts, report.md and report.html
// of a saved results folder) and `hammer report --compare A B` (set two
// runs side by side; exits 1 when a run got worse from A to B).
func reportCmd(args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer report", flag.ContinueOnError)
	compare := fs.Bool("compare", false, "compare two results folders: hammer report --compare A B")
	if code, ok := parse(fs, args, io); !ok {
		return code
	}
	if *compare {
		if fs.NArg() != 2 {
			return usageError(io, "report", "--compare: want two results folders, got %d arguments", fs.NArg())
		}
		return compareFolders(fs.Arg(0), fs.Arg(1), io)
	}
	if fs.NArg() != 1 {
		return usageError(io, "report", "want exactly one results folder, got %d arguments", fs.NArg())
	}
	dir := fs.Arg(0)
	defer analysisGC()()
	f, err := folder.Load(dir)
	if err != nil {
		return loadError(io, "report", err)
	}
	// junit.xml is rebuilt where the command that made the folder wrote one.
	junit := ""
	if _, err := os.Stat(filepath.Join(dir, folder.JUnitFile)); err == nil {
		junit = "hammer " + f.Manifest.Command
	}
	summary := judge(f)
	if err := writeReport(dir, f, summary, report.Outputs{JUnit: junit}); err != nil {
		fmt.Fprintf(io.err, "hammer: report: %v\n", err)
		return exitInfra
	}
	fmt.Fprintf(io.out, "rebuilt %s, %s, %s and the charts in %s\n", folder.ReportFile, folder.HTMLFile, folder.SummaryFile, dir)
	if summary.ExitCode != exitOK {
		// The exit code says something is wrong; the table says what.
		fmt.Fprintln(io.out)
		if err := report.WriteTable(io.out, summary); err != nil {
			return unprinted(io, err, summary.ExitCode)
		}
	}
	return summary.ExitCode
}

// writeReport writes everything derived from a verified results folder
// into dir: what report renders from summary (summary.json,
// violations.txt, the charts, report.md and, as o says, junit.xml), then
// its histograms (histograms.json and the .hgrm files).
func writeReport(dir string, f *folder.Folder, summary report.Summary, o report.Outputs) error {
	if err := report.Write(dir, f, summary, o); err != nil {
		return err
	}
	return f.SaveHistograms(dir)
}

// compareFolders prints how folder b differs from folder a, warns when
// the two are not alike (another command, another matrix), and exits as
// compareExitCode says.
func compareFolders(a, b string, io stdio) int {
	var sums [2]report.Summary
	for i, dir := range []string{a, b} {
		f, err := folder.Load(dir)
		if err != nil {
			return loadError(io, "report", fmt.Errorf("--compare: %w", err))
		}
		sums[i] = judge(f)
	}
	j := report.Regressions(sums[0], sums[1])
	if j.Compared == 0 { // the wrong folder, or every run renamed
		return usageError(io, "report", "--compare: %s and %s have no run in common (A: %s; B: %s), so nothing was compared",
			a, b, runNames(sums[0]), runNames(sums[1]))
	}
	for _, w := range report.Mismatches(sums[0], sums[1]) {
		fmt.Fprintf(io.err, "hammer: warning: %s\n", w)
	}
	if err := report.Compare(io.out, sums[0], sums[1], a, b); err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}
	return compareExitCode(j)
}

// runNames lists the runs of s, or says it has none.
func runNames(s report.Summary) string {
	if len(s.Runs) == 0 {
		return "no run"
	}
	out := make([]string, len(s.Runs))
	for i, r := range s.Runs {
		out[i] = r.Name
	}
	return strings.Join(out, ", ")
}

// compareExitCode is the exit code of a comparison (see
// report.Regressions): exitFail when some run got worse, exitInfra when
// none did but some run can no longer be determined in B, exitOK
// otherwise.
func compareExitCode(j report.Judgement) int {
	switch {
	case len(j.Worse) > 0:
		return exitFail
	case len(j.Undetermined) > 0:
		return exitInfra
	}
	return exitOK
}
