package report

import (
	"strconv"
	"strings"
	"unicode"
)

// printable returns text with every control character but the line
// break written as its Go escape (\x1b, \r, \t, \u009b): the table goes to
// a terminal, and its cells quote what a results folder or a service
// said (run names, request ids, error texts), which could otherwise move
// the cursor, clear the screen or rewrite a line already printed.
func printable(text string) string {
	if !strings.ContainsFunc(text, isEscaped) {
		return text
	}
	var b strings.Builder
	for _, r := range text {
		if !isEscaped(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// isEscaped reports whether printable escapes r.
func isEscaped(r rune) bool { return r != '\n' && unicode.IsControl(r) }
