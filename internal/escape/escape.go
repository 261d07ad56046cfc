// Package escape writes what hammer quotes from outside (a target file, a
// results folder, a service's answers) so that it cannot move a
// terminal's cursor, rewrite a line already printed, or hide in a
// message: every character that is not printable becomes its Go escape
// (\x1b, \r, \t, \u200b).
package escape

import (
	"strconv"
	"strings"
	"unicode"
)

// Line returns text with every character that is not printable written
// as its Go escape, line breaks included: the result is one line.
func Line(text string) string { return escape(text, false) }

// Lines is Line but keeps line breaks.
func Lines(text string) string { return escape(text, true) }

// escape writes the characters of text that are not printable (but line
// breaks, when keepBreaks) as their Go escapes.
func escape(text string, keepBreaks bool) string {
	hidden := func(r rune) bool { return !unicode.IsPrint(r) && !(keepBreaks && r == '\n') }
	if !strings.ContainsFunc(text, hidden) {
		return text
	}
	var b strings.Builder
	for _, r := range text {
		if !hidden(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
