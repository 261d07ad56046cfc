package folder

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeListsEveryFile checks the table of docs/results.md against
// the files the code writes: every file is described, and the table names
// no file the code does not write.
func TestReadmeListsEveryFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	described := readmeFiles(string(b))
	written := files()
	for _, f := range written {
		if !slices.Contains(described, f) {
			t.Errorf("docs/results.md does not describe %s", f)
		}
	}
	for _, f := range described {
		if !slices.Contains(written, f) {
			t.Errorf("docs/results.md describes %s, which hammer does not write", f)
		}
	}
}

// readmeFiles returns the files named in the first column of the page's
// table: each `name` in it, or, when the cell also names extensions
// (`.png`), each name with each extension.
func readmeFiles(readme string) []string {
	code := regexp.MustCompile("`([^`]+)`")
	var out []string
	for _, line := range strings.Split(readme, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "file" {
			continue
		}
		var names, exts []string
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			if strings.HasPrefix(m[1], ".") {
				exts = append(exts, m[1])
			} else {
				names = append(names, m[1])
			}
		}
		if len(exts) == 0 {
			exts = []string{""}
		}
		for _, n := range names {
			for _, e := range exts {
				out = append(out, n+e)
			}
		}
	}
	return out
}

func TestReadmeFiles(t *testing.T) {
	readme := "intro `not-a-file`\n\n| file | what |\n|---|---|\n| `a.json` | x `b` |\n| `c`, `d` (`.png`, `.svg`) | charts |\n"
	want := []string{"a.json", "c.png", "c.svg", "d.png", "d.svg"}
	if got := readmeFiles(readme); !slices.Equal(got, want) {
		t.Errorf("readmeFiles = %q, want %q", got, want)
	}
}
