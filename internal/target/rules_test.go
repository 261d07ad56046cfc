package target

import (
	"testing"

	"github.com/hammer-load/hammer/history"
)

// exampleRules are the response rules of the example service.
func exampleRules() Rules {
	return Rules{
		{Status: 201, Outcome: history.Sold, Seat: "/seat"},
		{Status: 409, JSON: &Condition{Pointer: "/error", Equals: "sold_out"}, Outcome: history.SoldOut},
		{Status: 409, Outcome: history.Rejected},
		{Status: 503, JSON: &Condition{Pointer: "/error", Equals: "lock_timeout"}, Outcome: history.LockTimeout},
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name    string
		rules   Rules
		status  int
		body    string
		want    history.Outcome
		seat    int
		matched bool
	}{
		{name: "sold", status: 201, body: `{"seat": 7}`, want: history.Sold, seat: 7, matched: true},
		{name: "sold out", status: 409, body: `{"error": "sold_out"}`, want: history.SoldOut, matched: true},
		{name: "duplicate falls through to rejected", status: 409, body: `{"error": "duplicate"}`, want: history.Rejected, matched: true},
		{name: "409 without json is rejected", status: 409, body: `oops`, want: history.Rejected, matched: true},
		{name: "gave up on the lock", status: 503, body: `{"error": "lock_timeout"}`, want: history.LockTimeout, matched: true},
		{name: "another 503 matches nothing", status: 503, body: `{"error": "overloaded"}`},
		{name: "500 matches nothing", status: 500, body: `{"error": "boom"}`},
		{name: "seat zero", status: 201, body: `{"seat": 0}`},
		{name: "seat negative", status: 201, body: `{"seat": -3}`},
		{name: "seat fraction", status: 201, body: `{"seat": 2.5}`},
		{name: "seat as string", status: 201, body: `{"seat": "2"}`},
		{name: "seat missing", status: 201, body: `{"place": 2}`},
		{name: "body not json", status: 201, body: `seat=2`},
		{name: "trailing garbage", status: 201, body: `{"seat": 2} x`},
		{name: "empty body", status: 201, body: ``},
		{
			name:   "nested pointer with escapes",
			rules:  Rules{{Status: 200, Outcome: history.Sold, Seat: "/a~1b/m~0n/1"}},
			status: 200, body: `{"a/b": {"m~n": [5, 6]}}`, want: history.Sold, seat: 6, matched: true,
		},
		{
			name:   "array index with leading zero",
			rules:  Rules{{Status: 200, Outcome: history.Sold, Seat: "/s/01"}},
			status: 200, body: `{"s": [5, 6]}`,
		},
		{
			name:   "array index past the end",
			rules:  Rules{{Status: 200, Outcome: history.Sold, Seat: "/s/2"}},
			status: 200, body: `{"s": [5, 6]}`,
		},
		{
			name:   "number compared by its json text",
			rules:  Rules{{Status: 200, JSON: &Condition{Pointer: "/code", Equals: "1.50"}, Outcome: history.SoldOut}},
			status: 200, body: `{"code": 1.50}`, want: history.SoldOut, matched: true,
		},
		{
			name:   "number text differs",
			rules:  Rules{{Status: 200, JSON: &Condition{Pointer: "/code", Equals: "1.5"}, Outcome: history.SoldOut}},
			status: 200, body: `{"code": 1.50}`,
		},
		{
			name:   "boolean and null",
			rules:  Rules{{Status: 200, JSON: &Condition{Pointer: "/ok", Equals: "false"}, Outcome: history.Rejected}, {Status: 200, JSON: &Condition{Pointer: "/x", Equals: "null"}, Outcome: history.SoldOut}},
			status: 200, body: `{"ok": true, "x": null}`, want: history.SoldOut, matched: true,
		},
		{
			name:   "object never equals",
			rules:  Rules{{Status: 200, JSON: &Condition{Pointer: "/x", Equals: "{}"}, Outcome: history.SoldOut}},
			status: 200, body: `{"x": {}}`,
		},
		{
			name:   "string that looks like a number",
			rules:  Rules{{Status: 200, JSON: &Condition{Pointer: "/code", Equals: "42"}, Outcome: history.SoldOut}},
			status: 200, body: `{"code": "42"}`, want: history.SoldOut, matched: true,
		},
		{
			name:   "first match wins",
			rules:  Rules{{Status: 201, Outcome: history.Rejected}, {Status: 201, Outcome: history.Sold, Seat: "/seat"}},
			status: 201, body: `{"seat": 1}`, want: history.Rejected, matched: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules := tt.rules
			if rules == nil {
				rules = exampleRules()
			}
			got, seat, ok := rules.Match(tt.status, []byte(tt.body))
			if got != tt.want || seat != tt.seat || ok != tt.matched {
				t.Errorf("Match(%d, %s) = %q, %d, %v; want %q, %d, %v", tt.status, tt.body, got, seat, ok, tt.want, tt.seat, tt.matched)
			}
		})
	}
}
