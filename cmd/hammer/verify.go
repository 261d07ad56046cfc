package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/internal/bounded"
	"github.com/hammer-load/hammer/report"
	"github.com/hammer-load/hammer/verify"
)

// verifyCmd is `hammer verify DIR`: re-check a results folder offline and
// exit with the code the run itself exited with.
func verifyCmd(args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer verify", flag.ContinueOnError)
	if code, ok := parse(fs, args, io); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(io, "verify", "want exactly one results folder, got %d arguments", fs.NArg())
	}
	defer analysisGC()()
	f, err := folder.Load(fs.Arg(0))
	if err != nil {
		return loadError(io, "verify", err)
	}
	if len(f.Runs()) == 0 {
		fmt.Fprintf(io.err, "hammer: %s lists no runs: nothing to verify\n", filepath.Join(fs.Arg(0), folder.ManifestFile))
		return exitInfra
	}
	summary := judge(f)
	if err := report.WriteTable(io.out, summary); err != nil {
		return unprinted(io, err, summary.ExitCode)
	}
	return summary.ExitCode
}

// loadError says why folder.Load failed and returns the exit code: a file
// past its size limit, no regular file or one that does not parse makes
// the folder's outcome indeterminate (exit 3); anything else, such as a
// folder that is not there, is a usage error.
func loadError(io stdio, cmd string, err error) int {
	if errors.Is(err, bounded.ErrTooLarge) || errors.Is(err, bounded.ErrNotRegular) || errors.Is(err, folder.ErrDamaged) {
		fmt.Fprintf(io.err, "hammer %s: %v\n", cmd, err)
		return exitInfra
	}
	return usageError(io, cmd, "%v", err)
}

// analysisGCPercent is the collector's GOGC while hammer loads, verifies
// and reports a race's records, which it holds whole: a 100,000-contender
// race's peaked at 207 MiB with Go's default of 100 and at 150 MiB with
// 25, for 0.2 s more CPU (docs/design/2026-12-06-flash-sale.md). The race
// itself runs with the default, so that the coordinator takes no CPU from
// the workers.
const analysisGCPercent = 25

// analysisGC sets analysisGCPercent, unless the user set GOGC, until the
// returned restore is called (the commands run in-process in tests).
func analysisGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(analysisGCPercent)
	return func() { debug.SetGCPercent(prev) }
}

// judge verifies every run of a results folder and summarises the
// verdicts, with the exit code they make.
func judge(f *folder.Folder) report.Summary {
	verdicts := verify.Runs(f.Runs())
	return report.Build(f, verdicts, verdictsExitCode(verdicts))
}

// verdictsExitCode is the exit code of a set of run verdicts: exitOK when
// there is at least one and every run holds its expectation (with no
// expectation: is valid); exitInfra for none, as nothing was verified;
// exitFail when any run definitely fails (invalid without a satisfied
// unsafe expectation, or a determined verdict that misses its
// expectation); exitInfra when nothing failed definitely but some run
// could not show its expectation (verify.Unshown: unknown, or a negative
// control that broke nothing). Each run is judged afresh with
// verify.Expect, so a stale RunVerdict.ExpectOK is not trusted.
func verdictsExitCode(rs []verify.RunVerdict) int {
	if len(rs) == 0 {
		return exitInfra
	}
	code := exitOK
	for _, r := range rs {
		if ok, _ := verify.Expect(r.Verdict, r.Run.Expected); ok {
			continue
		}
		if verify.Unshown(r.Verdict.Status, r.Run.Expected) {
			code = exitInfra
			continue
		}
		return exitFail
	}
	return code
}
