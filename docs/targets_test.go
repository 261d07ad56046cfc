package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeListsEveryMakeTarget checks that every target the Makefile
// documents with a "## name: …" comment (or "## a/b: …" for two) is named
// in the README as `make name`: the README's table is where a user looks.
func TestReadmeListsEveryMakeTarget(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	targets := documentedTargets(string(mk))
	if len(targets) < 10 {
		t.Fatalf("found %d documented targets in the Makefile (%q): its ## comments were not read", len(targets), targets)
	}
	for _, target := range targets {
		if !regexp.MustCompile("`make " + regexp.QuoteMeta(target) + "[` ]").Match(readme) {
			t.Errorf("README.md does not name `make %s`, which the Makefile documents", target)
		}
	}
}

// documentedTargets returns the targets named by the Makefile's "## "
// comments that start with "name:" or "a/b:".
func documentedTargets(makefile string) []string {
	var out []string
	head := regexp.MustCompile(`^## ([a-z][a-z0-9/-]*):`)
	for _, line := range strings.Split(makefile, "\n") {
		if m := head.FindStringSubmatch(line); m != nil {
			out = append(out, strings.Split(m[1], "/")...)
		}
	}
	return out
}

func TestDocumentedTargets(t *testing.T) {
	mk := "## build: bin\n## the next line\nbuild:\n## up/down: docker\n# plain comment: no\n"
	got := strings.Join(documentedTargets(mk), " ")
	if got != "build up down" {
		t.Errorf("documentedTargets = %q, want \"build up down\"", got)
	}
}
