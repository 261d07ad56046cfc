package verify

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/history"
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
	if notes := strings.Join(v.Notes, "\n"); !strings.Contains(notes, "the ledger was read up to its first 5 rows, which hold 5 distinct sales of this race's own requests, more than the 4 seats") {
		t.Errorf("the notes do not tell the cut:\n%s", notes)
	}

	in.Sales = in.Sales[:4] // a folder whose ledger holds fewer rows than it says were read
	v = Check(in)
	if v.Status != Unknown {
		t.Errorf("a truncated ledger of 4 rows for 4 seats: verdict %s, want unknown", v.Summary())
	}
	want := "ledger.jsonl holds 4 rows of this run, but manifest.json records the ledger truncated at 5 rows read"
	if got := strings.Join(v.Undetermined, "\n"); !strings.Contains(got, want) {
		t.Errorf("the mismatch is not told as %q:\n%s", want, got)
	}
	// The rows left say nothing of the cut: no line may read them as if
	// they were what the race read.
	if got := strings.Join(v.Undetermined, "\n"); strings.Contains(got, "returns more rows") || strings.Contains(got, "was read up to") {
		t.Errorf("a changed ledger's rows are told as the cut:\n%s", got)
	}
}

// TestTruncatedLedgerOfOtherRows: a ledger cut at its row limit whose rows
// hold no more distinct sales of the race's own requests than seats (the
// query returns duplicates and rows that are no sale of the race) proves
// nothing, however many rows it has: the verdict is unknown with one note
// that says so, and no check that reads the rows fails. Duplicates and
// other rows beside more distinct own sales than seats still prove the
// oversell, counted by distinct own request.
func TestTruncatedLedgerOfOtherRows(t *testing.T) {
	r := &race{}
	for i := range 6 {
		r.attempt(reqID(i), "sold", i%4+1)
	}
	for i := range 3 { // 3 real sales, each twice, then rows of no attempt
		r.row(reqID(i), i%4+1).row(reqID(i), i%4+1)
	}
	for i := range 10 {
		r.row(fmt.Sprintf("r%d", i), i%4+1)
	}
	in := r.input(4, 4, 0)
	in.LedgerTruncated = len(in.Sales)
	v := Check(in)
	if v.Status != Unknown || len(v.Violations) > 0 {
		t.Fatalf("verdict %s, violations %v: want unknown, none", v.Summary(), v.Violations)
	}
	want := "hammer's ledger returns more rows than the race made attempts (16 rows read, 3 of them this race's sales)"
	if got := strings.Join(v.Undetermined, "\n"); !strings.Contains(got, want) || len(v.Undetermined) != 1 {
		t.Errorf("undetermined, want the one line %q:\n%s", want, got)
	}

	in.Sales = append(in.Sales[:6:6], r.sales[0], history.Sale{Run: "r", Sector: 1, Seat: 4, RequestID: reqID(3)},
		history.Sale{Run: "r", Sector: 1, Seat: 1, RequestID: reqID(4)}, r.sales[6])
	in.LedgerTruncated = len(in.Sales)
	v = Check(in)
	if v.Status != Invalid || v.Sold != 5 {
		t.Fatalf("5 distinct own sales among 10 rows for 4 seats: verdict %s, sold %d, want invalid, 5", v.Summary(), v.Sold)
	}
	if !slices.ContainsFunc(v.Violations, func(x Violation) bool {
		return x.Check == CheckOversell && strings.Contains(x.Detail, "sold at least 5 of 4 seats")
	}) {
		t.Errorf("no oversell of at least 5 among %v", v.Violations)
	}
}
