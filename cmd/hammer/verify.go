package main

import (
	"flag"
	"fmt"

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
	folder, lat, err := loadFolder(fs.Arg(0))
	if err != nil {
		return usageError(io, "verify", "%v", err)
	}
	summary := report.Build(folder, lat, verify.Folder(folder))
	if err := report.WriteTable(io.out, summary); err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}
	return summary.ExitCode
}
