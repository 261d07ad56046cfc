package docs

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Link is one Markdown link of a page: its target as written and the
// line it is on.
type Link struct {
	Target string
	Line   int
}

// linkPattern finds inline links and images: [text](target) or
// [text](target "title").
var linkPattern = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// inlineCode finds code spans, whose text is not Markdown.
var inlineCode = regexp.MustCompile("`[^`]*`")

// Links returns the links of a Markdown page outside code blocks and code
// spans.
func Links(md string) []Link {
	var out []Link
	fenced := false
	for i, line := range strings.Split(md, "\n") {
		if isFence(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range linkPattern.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, "``"), -1) {
			out = append(out, Link{Target: m[1], Line: i + 1})
		}
	}
	return out
}

// isFence reports whether a line opens or closes a fenced code block.
func isFence(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "```")
}

// Anchors returns the anchors GitHub gives the headings of a Markdown
// page: each heading's slug, with -1, -2… for the second and later
// headings of the same slug.
func Anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if isFence(line) {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(text, " ") {
			continue
		}
		slug := Slug(text)
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// Slug is GitHub's anchor for a heading's text: lower case, every
// character but letters, digits, spaces, hyphens and underscores dropped,
// spaces turned into hyphens. Link syntax keeps only its text.
func Slug(heading string) string {
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(strings.TrimSpace(heading), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// Pages returns the Markdown pages of the repository at root that the
// documentation's tests read, relative to root: the front door, the
// contributor pages and everything under docs/.
func Pages(root string) ([]string, error) {
	out := []string{"README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "CHANGELOG.md", "BENCHMARKS.md", "results/README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return err
	})
	return out, err
}
