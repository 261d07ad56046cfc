package proclog

import (
	"regexp"
	"strings"
)

// Last returns up to n lines from the end of the log that say something:
// blank lines, hammer's own notes and what a runtime prints after the
// process's last words (Node's "Node.js v20.20.2", the Go scheduler's
// trace) are passed over, and so are repeats of the line before. When
// the last lines hold an error's headline (Node's "TypeError: …", Go's
// "panic: …", PHP's "Fatal error: …", Python's last line), the quote
// starts at the last one, so that a crash shows its error and the head of
// its stack rather than the stack's bottom. Each line is cut to maxLine
// characters.
func (l *Log) Last(n int) []string {
	var lines []string
	for _, line := range strings.Split(l.text(), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if noise(line) || (len(lines) > 0 && lines[len(lines)-1] == line) {
			continue
		}
		lines = append(lines, line)
	}
	if len(lines) > window {
		lines = lines[len(lines)-window:]
	}
	from := max(0, len(lines)-n)
	for i := len(lines) - 1; i >= 0; i-- {
		if headline.MatchString(lines[i]) {
			from = i
			break
		}
	}
	out := lines[from:min(len(lines), from+n)]
	for i, line := range out {
		if line = strings.TrimSpace(line); len(line) > maxLine {
			line = line[:maxLine] + "…"
		}
		out[i] = line
	}
	return out
}

// Quote is Last(n) on one line, the lines set apart by " | ", or "" for a
// log that says nothing.
func (l *Log) Quote(n int) string { return strings.Join(l.Last(n), " | ") }

// window is how many lines from the end an error's headline is looked for
// in: a crash's headline and its stack, and a few lines after.
const window = 40

// maxLine is the most characters of one quoted line.
const maxLine = 300

// headline is the first line of an error as runtimes print it: a name
// ending in Error or Exception (with Node's [CODE]) and a colon, or the
// Go, PHP and Node words for a fatal one.
var headline = regexp.MustCompile(`^([\w$.]*(Error|Exception|error)( \[[\w.-]+\])?:\s|panic: |fatal error: |(PHP )?Fatal error: |Uncaught )`)

// runtimeVersion is the line Node prints after an uncaught exception.
var runtimeVersion = regexp.MustCompile(`^Node\.js v\d+\.\d+\.\d+$`)

// noise tells a line that is not what the process said.
func noise(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, strings.TrimSpace(notePrefix)) || runtimeVersion.MatchString(t) {
		return true
	}
	rest, ok := strings.CutPrefix(t, "SCHED ")
	return ok && strings.Contains(rest, "ms: gomaxprocs=")
}
