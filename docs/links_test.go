package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, seen from this package.
const root = ".."

// pages are the Markdown files whose links must resolve.
func pages(t *testing.T) []string {
	t.Helper()
	out, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLinksResolve checks every relative link of every page: the file or
// folder it names exists, and its #anchor is a heading of the page it
// points at (GitHub's slugs).
func TestLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) (map[string]bool, error) {
		if a, ok := anchors[page]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		anchors[page] = Anchors(string(b))
		return anchors[page], nil
	}
	for _, page := range pages(t) {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		for _, l := range Links(string(b)) {
			if strings.Contains(l.Target, "://") || strings.HasPrefix(l.Target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(l.Target, "#")
			target := page
			if path != "" {
				target = filepath.Join(filepath.Dir(page), path)
				if _, err := os.Stat(filepath.Join(root, target)); err != nil {
					t.Errorf("%s:%d: link %s: no such file", page, l.Line, l.Target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s:%d: link %s: an anchor into a file that is not Markdown", page, l.Line, l.Target)
				continue
			}
			a, err := anchorsOf(target)
			if err != nil {
				t.Errorf("%s:%d: link %s: %v", page, l.Line, l.Target, err)
				continue
			}
			if !a[anchor] {
				t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", page, l.Line, l.Target, target, anchor)
			}
		}
	}
}

// commitHash looks like an abbreviated or full git commit hash: 7 to 40
// hex digits holding both a digit and a letter.
var commitHash = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

// TestUserPagesNameNoCommit: the pages a user reads say what is, not how
// it got there; a measurement tied to a commit belongs in docs/design/.
// Code spans and blocks (a request id's hex tag) are not prose.
func TestUserPagesNameNoCommit(t *testing.T) {
	for _, page := range pages(t) {
		if strings.HasPrefix(page, filepath.Join("docs", "design")) || page == "BENCHMARKS.md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range proseLines(string(b)) {
			for _, h := range commitHash.FindAllString(line, -1) {
				if strings.ContainsAny(h, "0123456789") && strings.ContainsAny(h, "abcdef") {
					t.Errorf("%s:%d: %q looks like a commit hash: move the history to docs/design/", page, i+1, h)
				}
			}
		}
	}
}

// proseLines returns a page's lines with code blocks and code spans
// blanked, so that line numbers stay those of the page.
func proseLines(md string) []string {
	lines := strings.Split(md, "\n")
	fenced := false
	for i, line := range lines {
		if isFence(line) {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
			continue
		}
		lines[i] = inlineCode.ReplaceAllString(line, "``")
	}
	return lines
}
