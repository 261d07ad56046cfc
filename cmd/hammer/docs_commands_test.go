package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/docs"
)

// repoRoot is the repository, seen from this package.
var repoRoot = filepath.Join("..", "..")

// docCommand is one hammer command line of a ```sh block of the
// documentation.
type docCommand struct {
	page string
	line int
	args []string
	// run: the block is marked <!-- doc-test: run [exit=N] --> and the
	// command is run, expecting exit code exit; otherwise it is only
	// parsed up to its flags.
	run  bool
	exit int
}

// marker is the comment that makes the next ```sh block run.
var marker = regexp.MustCompile(`^<!-- doc-test: (run|skip)(?: exit=(\d))? -->$`)

// docCommands returns the hammer commands of a page's ```sh blocks (also
// ```sh blocks indented in a list), continuation lines joined. A block
// after <!-- doc-test: skip --> is left out.
func docCommands(page, md string) []docCommand {
	var out []docCommand
	lines := strings.Split(md, "\n")
	run, skip, exit := false, false, 0
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if m := marker.FindStringSubmatch(trimmed); m != nil {
			run, skip = m[1] == "run", m[1] == "skip"
			exit, _ = strconv.Atoi(m[2])
			continue
		}
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		lang := strings.TrimPrefix(trimmed, "```")
		start := i
		for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
		}
		if lang == "sh" && !skip {
			for _, c := range shellCommands(lines[start+1 : min(i, len(lines))]) {
				c.page, c.line, c.run, c.exit = page, start+1+c.line, run, exit
				out = append(out, c)
			}
		}
		run, skip, exit = false, false, 0
	}
	return out
}

// shellCommands picks the hammer commands out of the lines of a shell
// block: a line (with its continuations) that starts with hammer or
// ./bin/hammer, cut at the first comment, pipe, redirection or &&.
func shellCommands(block []string) []docCommand {
	var out []docCommand
	for i := 0; i < len(block); i++ {
		first := i
		line := strings.TrimSpace(block[i])
		for strings.HasSuffix(line, `\`) && i+1 < len(block) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(block[i])
		}
		words := shellWords(line)
		if len(words) == 0 || (words[0] != "hammer" && words[0] != "./bin/hammer") {
			continue
		}
		out = append(out, docCommand{line: first + 1, args: words[1:]})
	}
	return out
}

// shellWords splits a command line as sh would for these simple cases:
// words separated by blanks, '…' and "…" quoting, and the line cut at an
// unquoted #, |, >, <, ; or &.
func shellWords(line string) []string {
	var out []string
	var word strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case strings.ContainsRune("#|><;&", r):
			if inWord {
				out = append(out, word.String())
			}
			return out
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, word.String())
	}
	return out
}

// TestDocumentedCommands runs every hammer command of the documentation's
// ```sh blocks from the repository's root: those marked
// <!-- doc-test: run --> for real (they run offline in well under a second),
// expecting their exit code; every other one through its flags only, so
// that a renamed flag or a value that does not parse fails here.
func TestDocumentedCommands(t *testing.T) {
	var cmds []docCommand
	pages, err := docs.Pages(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, docCommands(page, string(b))...)
	}
	t.Chdir(repoRoot)
	t.Setenv(envToken, "")
	ran := 0
	for _, c := range cmds {
		var out, errb strings.Builder
		io := stdio{in: strings.NewReader(""), out: &out, err: &errb}
		if !c.run {
			io.flagsOnly = func(*flag.FlagSet) {}
		} else {
			ran++
		}
		code := run(context.Background(), c.args, io)
		switch {
		case c.run && code != c.exit:
			t.Errorf("%s:%d: hammer %s: exit %d, want %d; stderr %q", c.page, c.line, strings.Join(c.args, " "), code, c.exit, errb.String())
		case c.run && out.Len() == 0:
			t.Errorf("%s:%d: hammer %s printed nothing", c.page, c.line, strings.Join(c.args, " "))
		case !c.run && code != exitOK:
			t.Errorf("%s:%d: hammer %s does not parse: exit %d, stderr %q", c.page, c.line, strings.Join(c.args, " "), code, errb.String())
		}
	}
	if len(cmds) < 10 || ran < 3 {
		t.Errorf("found %d documented hammer commands, %d of them run: the pages or the markers were not read", len(cmds), ran)
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		name, line string
		want       []string
	}{
		{"plain", "hammer run --mode none", []string{"hammer", "run", "--mode", "none"}},
		{"comment", "hammer gate   # the gate", []string{"hammer", "gate"}},
		{"quoted", `hammer load --pg-url 'postgres://a b' --x "y"`, []string{"hammer", "load", "--pg-url", "postgres://a b", "--x", "y"}},
		{"redirect", "hammer token > hammer.token && chmod 600 hammer.token", []string{"hammer", "token"}},
		{"pipe", "hammer help | head", []string{"hammer", "help"}},
	}
	for _, tt := range tests {
		got := shellWords(tt.line)
		if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("%s: shellWords(%q) = %q, want %q", tt.name, tt.line, got, tt.want)
		}
	}
}

func TestDocCommandsMarkers(t *testing.T) {
	md := "```sh\nhammer load \\\n  --seats 5   # x\nmake test\n```\n" +
		"<!-- doc-test: run exit=1 -->\n```sh\nhammer verify DIR\n```\n" +
		"<!-- doc-test: skip -->\n```sh\nhammer nonsense\n```\n" +
		"```\nhammer synopsis [flags]\n```\n"
	got := docCommands("p.md", md)
	if len(got) != 2 {
		t.Fatalf("docCommands = %+v, want 2 commands", got)
	}
	if a := strings.Join(got[0].args, " "); a != "load --seats 5" || got[0].run || got[0].line != 2 {
		t.Errorf("first = %+v, want load --seats 5 on line 2, parsed only", got[0])
	}
	if !got[1].run || got[1].exit != 1 || got[1].line != 8 {
		t.Errorf("second = %+v, want run with exit 1 on line 8", got[1])
	}
}
