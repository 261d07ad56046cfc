package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cliReference is the committed command-line reference.
var cliReference = filepath.Join("..", "..", "docs", "cli.md")

// TestCLIReferenceCurrent fails while docs/cli.md differs from what
// `hammer help --markdown` writes: a flag was added, renamed or reworded
// without `make cli-reference`.
func TestCLIReferenceCurrent(t *testing.T) {
	var b strings.Builder
	if err := writeReference(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(cliReference)
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != b.String() {
		t.Errorf("docs/cli.md is stale: run make cli-reference (or hammer help --markdown > docs/cli.md) and commit it")
	}
}

// TestCLIReferenceListsEveryFlag checks docs/cli.md against the commands'
// own help, independently of the generator: every command `hammer help`
// lists has a section, and every flag its -h prints is in that section.
func TestCLIReferenceListsEveryFlag(t *testing.T) {
	b, err := os.ReadFile(cliReference)
	if err != nil {
		t.Fatal(err)
	}
	sections := referenceSections(string(b))
	listed := regexp.MustCompile(`(?m)^  hammer ([a-z]+)`).FindAllStringSubmatch(usage(), -1)
	if len(listed) == 0 {
		t.Fatal("hammer help lists no command")
	}
	for _, m := range listed {
		cmd := m[1]
		section, ok := sections[cmd]
		if !ok {
			t.Errorf("docs/cli.md has no section \"## hammer %s\"", cmd)
			continue
		}
		for _, fl := range helpFlags(t, cmd) {
			if !strings.Contains(section, "`--"+fl.name+"`") && !strings.Contains(section, "`--"+fl.name+" ") {
				t.Errorf("docs/cli.md: the section of hammer %s does not list --%s", cmd, fl.name)
			}
		}
	}
}

// referenceSections splits the reference at its "## hammer CMD" headings.
func referenceSections(md string) map[string]string {
	out := map[string]string{}
	parts := strings.Split(md, "\n## hammer ")
	for _, p := range parts[1:] {
		name, body, _ := strings.Cut(p, "\n")
		out[name] = body
	}
	return out
}

// TestReferenceSections checks the splitting the test above relies on.
func TestReferenceSections(t *testing.T) {
	got := referenceSections("# x\n\n## hammer run\n\n| `--mode mode` |\n\n## hammer token\n\nNo flags.\n")
	if !strings.Contains(got["run"], "`--mode mode`") || !strings.Contains(got["token"], "No flags.") || len(got) != 2 {
		t.Errorf("referenceSections = %q", got)
	}
}
