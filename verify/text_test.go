package verify

import "testing"

func TestCapList(t *testing.T) {
	tests := []struct {
		name  string
		items []string
		want  string
	}{
		{name: "empty", items: nil, want: ""},
		{name: "one", items: []string{"a"}, want: "a"},
		{name: "exactly the cap", items: []string{"a", "b", "c", "d", "e"}, want: "a, b, c, d, e"},
		{name: "one over the cap", items: []string{"a", "b", "c", "d", "e", "f"}, want: "a, b, c, d, e and 1 more"},
		{name: "many over the cap", items: []string{"a", "b", "c", "d", "e", "f", "g", "h"}, want: "a, b, c, d, e and 3 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := capList(tt.items); got != tt.want {
				t.Errorf("capList(%q) = %q, want %q", tt.items, got, tt.want)
			}
		})
	}
}

func TestCompareIDs(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{name: "numbers compare as numbers", a: "p0-g2", b: "p0-g10", want: -1},
		{name: "process before goroutine", a: "p1-g0", b: "p0-g99", want: 1},
		{name: "equal", a: "p3-g7", b: "p3-g7", want: 0},
		{name: "leading zeros break ties by bytes", a: "p01", b: "p1", want: -1},
		{name: "prefix first", a: "p1", b: "p1-g0", want: -1},
		{name: "letters", a: "ghost", b: "late", want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compareIDs(tt.a, tt.b); got != tt.want {
				t.Errorf("compareIDs(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
