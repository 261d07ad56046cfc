package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/hammer-load/hammer/scenarios"
)

// runCmd is `hammer run`: one race in one mode.
func runCmd(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer run", flag.ContinueOnError)
	var f raceFlags
	f.register(fs, loadDefaults())
	mode := fs.String("mode", "", "reservation `mode`: "+modeNames(" or "))
	fault := fs.String("fault", "none", "`fault` to inject: none, "+faultNames(" or "))
	extend := fs.Bool("extend", false, "keep extending the lock's TTL while the holder works (heartbeat)")
	fs.Float64Var(&f.rate, "rate", 0, "open model: issue `N` attempts per second in all (with --duration), timed from their intended start")
	fs.DurationVar(&f.duration, "duration", 0, "open model: how long to issue attempts at --rate")
	variant := fs.String("variant", "", "`variant` of the --target service to race")
	if code, ok := f.parse(fs, args, io); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(io, "run", "unexpected argument %q", fs.Arg(0))
	}
	m, err := runMode(&f, *mode, *variant)
	if err != nil {
		return usageError(io, "run", "%v", err)
	}
	flt, err := scenarios.ParseFault(*fault)
	if err != nil {
		return usageError(io, "run", "%v", err)
	}
	if *extend && (!m.UsesLock() || f.target.file != nil) {
		return usageError(io, "run", "--extend needs a mode with a lock, not %s", m)
	}
	if err := m.CheckFault(flt); err != nil && f.target.file == nil {
		return usageError(io, "run", "%v", err)
	}
	lock, err := f.runLock(m)
	if err != nil {
		return usageError(io, "run", "%v", err)
	}
	sc := scenarios.Scenario{Mode: m, Fault: flt, Extend: *extend, NoHint: !f.soldOutHint, Lock: lock}.Named()
	return raceAll(ctx, raceCommand{name: "run"}, &f, []scenarios.Scenario{sc}, io)
}

// runMode is what run races: a built-in mode (--mode), or a variant of
// the --target service (--variant).
func runMode(f *raceFlags, mode, variant string) (scenarios.Mode, error) {
	switch t := f.target.file; {
	case t == nil && variant != "":
		return "", fmt.Errorf("--variant names a variant of a --target service; without --target use --mode")
	case t == nil && mode == "":
		return "", fmt.Errorf("--mode is required (%s)", modeNames(" or "))
	case t == nil:
		return scenarios.ParseMode(mode)
	case mode != "":
		return "", fmt.Errorf("--mode races hammer's own strategies; with --target use --variant (one of %s)", strings.Join(t.VariantNames(), ", "))
	case variant == "":
		return "", fmt.Errorf("--variant is required with --target (one of %s)", strings.Join(t.VariantNames(), ", "))
	}
	if _, err := f.target.file.Variant(variant); err != nil {
		return "", err
	}
	return scenarios.Mode(variant), nil
}
