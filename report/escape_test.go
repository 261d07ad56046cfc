package report

import (
	"strings"
	"testing"

	"github.com/hammer-load/hammer/verify"
)

// TestWriteTableEscapesControls: a run name and a violation quoting what a
// results folder held (an escape sequence, a carriage return) are printed
// escaped, so they cannot clear the terminal or rewrite a line.
func TestWriteTableEscapesControls(t *testing.T) {
	s := Summary{Runs: []RunSummary{{
		Name: "none\x1b[2J", Verdict: verify.Invalid,
		Violations: []verify.Violation{{Check: verify.CheckDoubleSold, Detail: "seat 1 sold to a and b\rvalid: 3/3 sold\u009b1A"}},
	}}}
	var b strings.Builder
	if err := WriteTable(&b, s); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.ContainsAny(got, "\x1b\r\u009b") {
		t.Errorf("the table holds a control character:\n%q", got)
	}
	for _, want := range []string{`none\x1b[2J`, `\rvalid`, `\u009b1A`} {
		if !strings.Contains(got, want) {
			t.Errorf("the table does not show %s:\n%s", want, got)
		}
	}
}
