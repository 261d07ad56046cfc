package main

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

// TestParseOnce: a flag given two values keeps the last, with a warning
// that names both (a URL's or a token's neither: they hold secrets); the same
// value twice, or a bool flag twice, is no warning.
func TestParseOnce(t *testing.T) {
	fs := flag.NewFlagSet("hammer run", flag.ContinueOnError)
	mode := fs.String("mode", "", "")
	url := fs.String("redis-url", "", "")
	fs.String("token", "", "")
	quiet := fs.Bool("quiet", false, "")
	warnings, err := parseOnce(fs, []string{"--mode", "none", "--quiet", "--mode", "lock-only", "--quiet",
		"--redis-url", "redis://:pw-one@h:1", "--redis-url", "redis://:pw-two@h:2", "--mode", "lock-only",
		"--token", `my"shared\token-one`, "--token", "token-two"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`--mode given twice, as "none" and then as "lock-only": the last one counts`,
		"--redis-url given twice, with two values: the last one counts",
		"--token given twice, with two values: the last one counts",
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
	if *mode != "lock-only" || *url != "redis://:pw-two@h:2" || !*quiet {
		t.Errorf("parsed mode %q, url %q, quiet %v; want the last of each", *mode, *url, *quiet)
	}
	if _, ok := fs.Lookup("mode").Value.(*onceValue); ok {
		t.Error("the flag set keeps the wrapper after parsing")
	}
}

// TestFlagGivenTwiceWarns: the warning comes once the command has run;
// a command that stops on a usage error says that in one line alone.
func TestFlagGivenTwiceWarns(t *testing.T) {
	code, stdout, stderr := hammer(t, "help", "--markdown=true", "--markdown=false")
	want := `hammer help: warning: --markdown given twice, as "true" and then as "false": the last one counts` + "\n"
	if code != exitOK || !strings.Contains(stdout, "hammer version") || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d, the list of commands and the warning %q", code, stderr, exitOK, want)
	}
	code, _, stderr = hammer(t, "run", "--mode", "none", "--mode", "no-such-mode")
	if code != exitUsage || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "warning") {
		t.Errorf("exit %d, stderr %q; want %d and the usage error alone", code, stderr, exitUsage)
	}
}
