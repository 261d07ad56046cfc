package escape

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, line, lines string
	}{
		{name: "plain", in: "sold 3 of 20 — ok", line: "sold 3 of 20 — ok", lines: "sold 3 of 20 — ok"},
		{name: "terminal escape", in: "a\x1b[2Jb", line: `a\x1b[2Jb`, lines: `a\x1b[2Jb`},
		{name: "line breaks", in: "a\r\nb\tc", line: `a\r\nb\tc`, lines: "a\\r\nb\\tc"},
		{name: "hidden format character", in: "a\u200bb\u009b", line: `a\u200bb\u009b`, lines: `a\u200bb\u009b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.line {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
			}
			if got := Lines(tt.in); got != tt.lines {
				t.Errorf("Lines(%q) = %q, want %q", tt.in, got, tt.lines)
			}
		})
	}
}
