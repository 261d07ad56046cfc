package target

import (
	"slices"
	"testing"
)

func TestExpand(t *testing.T) {
	vals := map[string]string{VarSector: "1", VarSeats: "50", VarRequestID: "p0-g1-a0", VarKeyPrefix: "{{sector}}"}
	tests := []struct {
		name, in, want string
	}{
		{name: "none", in: "SELECT 1", want: "SELECT 1"},
		{name: "repeated", in: "VALUES ({{sector}}, {{seats}}, {{seats}})", want: "VALUES (1, 50, 50)"},
		{name: "unknown stays", in: "/s/{{sector}}/{{contender}}", want: "/s/1/{{contender}}"},
		{name: "json untouched", in: `{"id": "{{request_id}}", "x": {"y": {}}}`, want: `{"id": "p0-g1-a0", "x": {"y": {}}}`},
		{name: "braces around a placeholder", in: `{{{sector}}}`, want: `{1}`},
		{name: "not a name", in: `{{"a": 1}} {{a b}} {{}}`, want: `{{"a": 1}} {{a b}} {{}}`},
		{name: "spaced is not expanded", in: "{{ sector }}", want: "{{ sector }}"},
		{name: "value not expanded again", in: "{{key_prefix}}lock", want: "{{sector}}lock"},
		{name: "unclosed", in: "a {{sector", want: "a {{sector"},
		{name: "template syntax untouched", in: "{{.Sector}} {{if x}}", want: "{{.Sector}} {{if x}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expand(tt.in, vals); got != tt.want {
				t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{name: "none", in: `{"a": {"b": 1}}`},
		{name: "in order with repeats", in: "{{seats}}{{sector}} {{seats}}", want: []string{"seats", "sector", "seats"}},
		{name: "spaced and capitals", in: "{{ port }} {{Sector}}", want: []string{"port", "Sector"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Placeholders(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Placeholders(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
