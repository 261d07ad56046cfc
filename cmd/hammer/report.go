package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/report"
	"github.com/hammer-load/hammer/verify"
)

// reportCmd is `hammer report DIR` (rebuild summary, charts and report.md
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
	folder, lat, err := loadFolder(dir)
	if err != nil {
		return usageError(io, "report", "%v", err)
	}
	junit := ""
	if folder.Manifest.Command == "gate" {
		junit = "hammer gate"
	}
	summary, err := report.WriteFolder(dir, folder, lat, report.Outputs{JUnit: junit})
	if err != nil {
		fmt.Fprintf(io.err, "hammer: report: %v\n", err)
		return exitInfra
	}
	fmt.Fprintf(io.out, "rebuilt %s, %s and the charts in %s\n", report.MarkdownFile, report.SummaryFile, dir)
	return summary.ExitCode
}

// compareFolders prints how folder b differs from folder a, warns when
// the two are not alike (another command, another matrix), and exits 1
// when some run got worse, 3 when none did but some run can no longer be
// determined in b, 0 otherwise (see report.Regressions).
func compareFolders(a, b string, io stdio) int {
	var sums [2]report.Summary
	for i, dir := range []string{a, b} {
		folder, lat, err := loadFolder(dir)
		if err != nil {
			return usageError(io, "report", "--compare: %v", err)
		}
		sums[i] = report.Build(folder, lat, verify.Folder(folder))
	}
	for _, w := range report.Mismatches(sums[0], sums[1]) {
		fmt.Fprintf(io.err, "hammer: warning: %s\n", w)
	}
	if err := report.Compare(io.out, sums[0], sums[1], a, b); err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}
	return report.Regressions(sums[0], sums[1]).ExitCode()
}

// loadFolder reads a results folder and its histograms (nil when the folder
// has none: they are rebuilt from the attempts).
func loadFolder(dir string) (*history.Folder, *latency.Set, error) {
	folder, err := history.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	lat, err := latency.Load(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return folder, nil, nil // an older folder: rebuilt from the attempts
	case err != nil:
		return nil, nil, err
	}
	return folder, lat, nil
}
