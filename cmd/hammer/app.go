package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9/logging"

	"github.com/hammer-load/hammer/internal/redact"
	"github.com/hammer-load/hammer/scenarios"
)

// Exit codes shared by every subcommand.
const (
	exitOK    = 0 // everything as expected
	exitFail  = 1 // a safety property was violated or an expectation failed
	exitUsage = 2 // bad usage or configuration
	exitInfra = 3 // infrastructure unavailable or outcome indeterminate
)

// workerCommand is the hidden subcommand a worker process runs.
const workerCommand = "_worker"

// stdio is where a command reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// secrets masks the run's passwords; out and err already pass
	// through it, records must be given to it before they are saved.
	secrets *redact.Redactor
	// flagsOnly, when set, stops a command once its flags are parsed:
	// it is handed the command's flag set instead of running it (the
	// command-line reference, the documentation's tests).
	flagsOnly func(*flag.FlagSet)
	// warnings collects what the command's flags deserve a word about
	// (a flag given two values), said once the command has run, unless it
	// stopped on a usage error, which is said in one line alone.
	warnings *[]string
}

// redacted returns io with out and err masking the given secrets and the
// passwords of the given URLs. Each Write is masked on its own, so a message must be written in
// one piece (fmt.Fprintf, a bar redraw) for a password in it to be masked.
func (io stdio) redacted(secrets []string, urls ...string) stdio {
	for _, u := range urls {
		secrets = append(secrets, redact.Secrets(u)...)
	}
	r := redact.Passwords(secrets...)
	io.out, io.err, io.secrets = r.Writer(io.out), r.Writer(io.err), r
	return io
}

// usage is the text of `hammer help`.
func usage() string {
	return fmt.Sprintf(usageFormat, wrap("Modes: "+modeNames(", ")+".", 88), wrap("Faults (run --fault, gate): "+faultNames(", ")+".", 88))
}

// usageFormat is usage with the lists of modes and faults left out.
const usageFormat = `hammer races contenders for the seats of one sector and says whether anything was oversold.

Usage:
  hammer run --mode MODE [flags]   one race; exit 0 valid, 1 invalid, 2 usage, 3 indeterminate
  hammer load [flags]              every mode against its expectation (the default matrix)
  hammer gate [--matrix FILE]      mode x fault matrix as a CI gate; writes junit.xml
  hammer verify DIR                re-verify a results folder offline
  hammer report DIR                rebuild summary, charts, report.md and report.html of a results folder
  hammer report --compare A B      B against A side by side; exit 0 none worse, 1 a run got worse, 3 cannot tell
  hammer agent --join HOST:PORT    a worker host for run|load|gate --agents N (see docs/agents.md)
  hammer token                     a fresh shared token for --token-file (32 random bytes, URL-safe)
  hammer version                   the version, commit and build date of this binary

%s
%s
Run 'hammer help COMMAND' (or 'hammer COMMAND -h') for a command's flags.
`

// run dispatches a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, io stdio) int {
	// go-redis would print its own dial failures on stderr; hammer reports
	// a failing server once, in its own words.
	logging.Disable()
	if len(args) > 0 && args[0] == workerCommand {
		// A worker speaks internal/wire's messages on stdout and gets its URLs
		// on stdin; the coordinator masks whatever it reports.
		return workerCmd(ctx, args[1:], io)
	}
	// The URLs come from the arguments or the environment: mask their
	// passwords in everything printed from here on, flag errors included.
	io = io.redacted(tokens(args), withNodeURLs(slices.Concat(args, []string{os.Getenv(envRedisURL), os.Getenv(envPGURL)}))...)
	if len(args) == 0 {
		fmt.Fprint(io.err, usage())
		return exitUsage
	}
	var warnings []string
	io.warnings = &warnings
	code := dispatch(ctx, args[0], args[1:], io)
	if code != exitUsage {
		for _, w := range warnings {
			fmt.Fprintln(io.err, w)
		}
	}
	return code
}

// dispatch runs subcommand cmd with its arguments.
func dispatch(ctx context.Context, cmd string, rest []string, io stdio) int {
	switch cmd {
	case "run":
		return runCmd(ctx, rest, io)
	case "load":
		return loadCmd(ctx, rest, io)
	case "gate":
		return gateCmd(ctx, rest, io)
	case "agent":
		return agentCmd(ctx, rest, io)
	case "verify":
		return verifyCmd(rest, io)
	case "report":
		return reportCmd(rest, io)
	case "token":
		return tokenCmd(rest, io)
	case "version", "--version", "-version":
		return versionCmd(rest, io)
	case "help", "-h", "-help", "--help":
		return helpCmd(ctx, rest, io)
	default:
		fmt.Fprintf(io.err, "hammer: unknown command %q: want run, load, gate, agent, token, verify, report or version (see hammer -h)\n", cmd)
		return exitUsage
	}
}

// parse parses a subcommand's flags; it returns false with the exit code
// when the command should stop: help asked for (printed on stdout, exit
// 0), or a bad flag (one line on stderr, exit 2).
func parse(fs *flag.FlagSet, args []string, std stdio) (int, bool) {
	fs.SetOutput(io.Discard) // a bad flag gets one line, not the whole usage
	warnings, err := parseOnce(fs, args)
	if std.warnings != nil {
		for _, w := range warnings {
			*std.warnings = append(*std.warnings, fmt.Sprintf("hammer %s: warning: %s", command(fs), w))
		}
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(std.out)
		fmt.Fprintf(std.out, "Usage of %s:\n", fs.Name())
		fs.PrintDefaults()
		return exitOK, false
	case err != nil:
		return usageError(std, command(fs), "%v", err), false
	case std.flagsOnly != nil:
		std.flagsOnly(fs)
		return exitOK, false
	}
	return 0, true
}

// command is the subcommand a flag set belongs to: "run" for "hammer run".
func command(fs *flag.FlagSet) string {
	_, cmd, _ := strings.Cut(fs.Name(), " ")
	return cmd
}

// unprinted is the exit code of a command whose verdict table could not be
// printed (err), code the verdict's: the verdict's own when its reader
// went away (a closed pipe: hammer run | head), as the verdict is known
// and saved; exitInfra for any other failure to write, said on stderr.
func unprinted(io stdio, err error, code int) int {
	if errors.Is(err, syscall.EPIPE) {
		return code
	}
	fmt.Fprintf(io.err, "hammer: print the verdict table: %v\n", err)
	return exitInfra
}

// usageError prints a one-line usage error of subcommand cmd, pointing at
// its help, and returns the usage exit code.
func usageError(io stdio, cmd, format string, args ...any) int {
	fmt.Fprintf(io.err, "hammer %s: %s (see hammer %s -h)\n", cmd, fmt.Sprintf(format, args...), cmd)
	return exitUsage
}

func workerExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find own executable for workers: %w", err)
	}
	return exe, nil
}

// faultNames lists the faults of the fault table, the last two joined by
// last: "pause, …, net-delay or partition".
func faultNames(last string) string { return joinNames(scenarios.Faults(), last) }

// modeNames lists the modes, the last two joined by last: "none, …,
// redis-gate or counter-only".
func modeNames(last string) string { return joinNames(scenarios.Modes(), last) }

// wrap breaks text into lines of at most width characters, at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && line+1+len(w) > width {
			b.WriteString("\n")
			line = 0
		} else if i > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}
