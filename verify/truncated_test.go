package verify

import (
	"slices"
	"strings"
	"testing"
)

// TestTruncatedLedger: a ledger cut at a limit proves what its rows show
// (an oversell, a phantom sale), never what they lack: missing-sale and
// conservation are not judged, the oversell reads "at least", and the cut
// is told. A cut ledger that proves no oversell leaves the run unknown.
func TestTruncatedLedger(t *testing.T) {
	// 4 seats, 6 attempts told sold, 5 rows read of a ledger that held
	// more: the rows of attempts 4 and 5 were not read.
	r := &race{}
	for i := range 6 {
		r.attempt(reqID(i), "sold", i%4+1)
	}
	for i := range 5 {
		r.row(reqID(i), i%4+1)
	}
	in := r.input(4, 4, 0)
	in.LedgerTruncated = 5
	v := Check(in)
	if v.Status != Invalid || !v.LedgerTruncated {
		t.Fatalf("verdict %s, truncated %v: want invalid, truncated", v.Summary(), v.LedgerTruncated)
	}
	var checks []string
	for _, x := range v.Violations {
		checks = append(checks, x.Check)
		if x.Check == CheckOversell && !strings.Contains(x.Detail, "sold at least 5 of 4 seats") {
			t.Errorf("oversell: %q, want it to say at least", x.Detail)
		}
	}
	for _, c := range []string{CheckMissingSale, CheckConservation} {
		if slices.Contains(checks, c) {
			t.Errorf("%s judged on a truncated ledger: %v", c, v.Violations)
		}
	}
	if !slices.Contains(checks, CheckOversell) {
		t.Errorf("no oversell among %v", checks)
	}
	if notes := strings.Join(v.Notes, "\n"); !strings.Contains(notes, "the ledger was truncated at 5 rows") {
		t.Errorf("the notes do not tell the cut:\n%s", notes)
	}

	in.Sales = in.Sales[:4] // a folder whose ledger holds fewer rows than its seats, yet says it was cut
	if v := Check(in); v.Status != Unknown {
		t.Errorf("a truncated ledger of 4 rows for 4 seats: verdict %s, want unknown", v.Summary())
	}
}
