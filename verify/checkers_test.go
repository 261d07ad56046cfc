package verify

import (
	"strings"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/linearize"
	"github.com/hammer-load/hammer/scenarios"
)

// TestCheckTwicePlantedDisagreement plants a history only porcupine flags:
// a seat that does not exist sold in a run that sold no more rows than
// seats, which none of hammer's counting checks sees. The run must be
// unknown, with one loud line naming both checkers and what each said.
func TestCheckTwicePlantedDisagreement(t *testing.T) {
	in := new(race).sold(1, 99).attempt("p9-g9", history.Sold, 101).row("p9-g9", 101).
		refused(5, history.SoldOut).input(100, 100, 0)
	if v := Check(in); v.Status != Valid {
		t.Fatalf("hammer alone: %s, want valid (the plant must be one only porcupine sees)", v.Summary())
	}
	v, lin := CheckTwice(in, linearize.DefaultTimeout)
	if lin.Status != linearize.Illegal || !lin.SeatsIllegal() {
		t.Fatalf("porcupine: %s, want illegal on a seat", lin.Summary())
	}
	if v.Status != Unknown {
		t.Fatalf("verdict = %s, want unknown", v.Summary())
	}
	if v.Checkers.Agreement != Disagree || v.Checkers.Hammer != Valid || v.Checkers.Porcupine != linearize.Illegal {
		t.Errorf("checkers = %+v, want hammer valid, porcupine illegal, disagree", *v.Checkers)
	}
	loud := v.Undetermined[0]
	for _, want := range []string{
		"CHECKERS DISAGREE",
		"hammer says valid: 100/100 sold",
		"porcupine says illegal: seat 101, which does not exist (the sector has seats 1 to 100): p9-g9 was told it got it",
	} {
		if !strings.Contains(loud, want) {
			t.Errorf("loud line %q lacks %q", loud, want)
		}
	}
	if strings.Count(strings.Join(v.Undetermined, "\n"), "CHECKERS DISAGREE") != 1 {
		t.Errorf("undetermined = %q, want the disagreement once", v.Undetermined)
	}
	if ok, _ := Expect(v, scenarios.Safe); ok {
		t.Error("a run the checkers disagree on holds its expectation")
	}
}

// TestReconcile compares hammer's verdict with porcupine's, given by hand,
// in both directions.
func TestReconcile(t *testing.T) {
	clean := new(race).sold(1, 10).refused(3, history.SoldOut).input(10, 10, 0)
	doubled := new(race).sold(1, 9).attempt("late", history.Sold, 5).row("late", 5).input(10, 10, 0)
	erred := new(race).sold(1, 9).refused(1, history.Error).input(10, 10, 1)
	seat := linearize.Result{Status: linearize.Illegal, Findings: []linearize.Finding{{Seat: 5, Detail: "seat 5: a and b were told they got it"}}}
	early := linearize.Result{Status: linearize.Illegal, Findings: []linearize.Finding{{Seat: 10, SoldOutOnly: true, Detail: "seat 10 was still free when o was told sold out"}}}
	tests := []struct {
		name  string
		in    Input
		lin   linearize.Result
		want  Agreement
		loud  string // in the disagreement's line
		note  string // among the notes
		still Status
	}{
		{name: "both clean", in: clean, lin: linearize.Result{Status: linearize.OK}, want: Agree, still: Valid},
		{name: "both see the seat", in: doubled, lin: seat, want: Agree, still: Invalid},
		{name: "hammer sees a double sale, porcupine does not", in: doubled, lin: linearize.Result{Status: linearize.OK}, want: Disagree,
			loud: "hammer says invalid: double-sold (1 seat: 5); porcupine says ok", still: Unknown},
		{name: "porcupine sees a seat, hammer only an error", in: erred, lin: seat, want: Disagree,
			loud: "hammer says no seat was sold wrongly (invalid: unexpected-error", still: Unknown},
		{name: "hammer sees only an error", in: erred, lin: linearize.Result{Status: linearize.OK}, want: Agree, still: Invalid},
		{name: "a sold out too early is not compared", in: clean, lin: early, want: Agree,
			note: "porcupine: seat 10 was still free when o was told sold out; hammer does not check", still: Valid},
		{name: "not checked is not compared", in: clean, lin: linearize.Result{Status: linearize.NotChecked, Reason: "porcupine did not finish within 1ns"},
			want: NotCompared, note: "porcupine did not check this run: porcupine did not finish within 1ns", still: Valid},
		{name: "hammer unknown is not compared", in: incomplete(clean, "worker 1 died"), lin: seat, want: NotCompared, still: Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := reconcile(Check(tt.in), newIndex(tt.in), tt.lin)
			if v.Checkers.Agreement != tt.want {
				t.Fatalf("agreement = %s (%s), want %s", v.Checkers.Agreement, v.Checkers.Why, tt.want)
			}
			if v.Status != tt.still {
				t.Errorf("verdict = %s, want %s", v.Summary(), tt.still)
			}
			if tt.loud != "" && (len(v.Undetermined) == 0 || !strings.Contains(v.Undetermined[0], tt.loud)) {
				t.Errorf("undetermined = %q, want first a line with %q", v.Undetermined, tt.loud)
			}
			if tt.note != "" && !strings.Contains(strings.Join(v.Notes, "\n"), tt.note) {
				t.Errorf("notes = %q, want one with %q", v.Notes, tt.note)
			}
		})
	}
}
