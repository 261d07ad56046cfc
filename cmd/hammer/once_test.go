package main

import (
	"flag"
	"slices"
	"testing"
)

// TestParseOnce: a flag given two values keeps the last, with a warning
// that names both (a URL's neither: it may hold a password); the same
// value twice, or a bool flag twice, is no warning.
func TestParseOnce(t *testing.T) {
	fs := flag.NewFlagSet("hammer run", flag.ContinueOnError)
	mode := fs.String("mode", "", "")
	url := fs.String("redis-url", "", "")
	quiet := fs.Bool("quiet", false, "")
	warnings, err := parseOnce(fs, []string{"--mode", "none", "--quiet", "--mode", "lock-only", "--quiet",
		"--redis-url", "redis://:pw-one@h:1", "--redis-url", "redis://:pw-two@h:2", "--mode", "lock-only"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`--mode given twice, as "none" and then as "lock-only": the last one counts`,
		"--redis-url given twice, with two URLs: the last one counts",
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
