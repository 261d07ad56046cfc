package docs

import (
	"slices"
	"testing"
)

func TestSlug(t *testing.T) {
	tests := []struct{ name, heading, want string }{
		{"plain", "The gate", "the-gate"},
		{"code and parentheses", "Redlock over N nodes (`--redis-nodes`)", "redlock-over-n-nodes---redis-nodes"},
		{"comma and apostrophe", "The workers' CPUs", "the-workers-cpus"},
		{"symbols dropped", "Latency, charts and the report", "latency-charts-and-the-report"},
		{"link keeps its text", "See [the gate](gate.md)", "see-the-gate"},
		{"underscore kept", "a_b c", "a_b-c"},
	}
	for _, tt := range tests {
		if got := Slug(tt.heading); got != tt.want {
			t.Errorf("%s: Slug(%q) = %q, want %q", tt.name, tt.heading, got, tt.want)
		}
	}
}

func TestAnchorsNumberRepeats(t *testing.T) {
	md := "# A\n\n## Exit codes\n\n```\n## not a heading\n```\n\n### Exit codes\n#nospace\n"
	got := Anchors(md)
	for _, want := range []string{"a", "exit-codes", "exit-codes-1"} {
		if !got[want] {
			t.Errorf("Anchors lacks %q: %v", want, got)
		}
	}
	if got["not-a-heading"] || got["nospace"] || len(got) != 3 {
		t.Errorf("Anchors = %v, want exactly a, exit-codes, exit-codes-1", got)
	}
}

func TestLinksSkipCode(t *testing.T) {
	md := "see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d](d.md#x \"title\")\n"
	var got []string
	for _, l := range Links(md) {
		got = append(got, l.Target)
	}
	if want := []string{"a.md", "d.md#x"}; !slices.Equal(got, want) {
		t.Errorf("Links = %q, want %q", got, want)
	}
}
