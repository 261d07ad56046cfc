package verify

import (
	"strings"
	"testing"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
)

// TestStoryNamesTraces: the story of a seat a service sold twice names
// the trace id each request was sent with, so that the requests can be
// looked up in the service's traces; a trace id that is not one (a
// changed record) is left out.
func TestStoryNamesTraces(t *testing.T) {
	const (
		trace = "4bf92f3577b34da6a3ce929d0e0e4736"
		ms    = int64(1_000_000)
	)
	r := new(race).sold(1, 4)
	for i, tr := range []string{trace, "4BF92F3577B34DA6A3CE929D0E0E4736\x1b[2J"} {
		id := []string{"p0-g9-a0", "p1-g9-a0"}[i]
		r.attempts = append(r.attempts, history.Attempt{Run: "r", Mode: "naive", Proc: i, RequestID: id,
			Outcome: history.Sold, Seat: 5, Status: 201, Invoke: int64(i+1) * ms, Complete: int64(i+10) * ms,
			Replica: "r0 127.0.0.1:8080", Trace: tr, Span: "00f067aa0ba902b7"})
		r.sales = append(r.sales, history.Sale{Run: "r", Sector: 1, Seat: 5, RequestID: id, SoldAt: int64(i+10) * ms})
	}
	got := Check(r.input(5, 5, 0).with(func(in *Input) { in.NoCounter, in.Sector = true, nil }))
	var story []string
	for _, v := range got.Violations {
		if v.Check == CheckDoubleSold {
			story = v.Story
		}
	}
	text := strings.Join(story, "\n")
	for _, want := range []string{
		"p0-g9-a0 (process 0, trace " + trace + ") sent its request to replica r0 127.0.0.1:8080",
		"p1-g9-a0 (process 1) sent its request to replica r0 127.0.0.1:8080",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the story of seat 5 does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(strings.ToLower(text), "4bf92f3577b34da6a3ce929d0e0e4736\x1b") {
		t.Errorf("the story quotes a trace id that is not one:\n%q", text)
	}
}

// TestNoStoryFromAChangedHistory: a seat sold twice, read from an intact
// ledger, still stands when history.jsonl changed after the run, but its
// story, told from that history's records, is not told: they may say
// anything.
func TestNoStoryFromAChangedHistory(t *testing.T) {
	const ms = int64(1_000_000)
	r := new(race).sold(1, 4)
	for i, id := range []string{"p0-g9-a0", "p1-g9-a0"} {
		r.attempts = append(r.attempts, history.Attempt{Run: "r", Mode: "naive", Proc: i, RequestID: id,
			Outcome: history.Sold, Seat: 5, Status: 201, Invoke: int64(i+1) * ms, Complete: int64(i+10) * ms})
		r.sales = append(r.sales, history.Sale{Run: "r", Sector: 1, Seat: 5, RequestID: id, SoldAt: int64(i+10) * ms})
	}
	in := r.input(5, 5, 0).with(func(in *Input) { in.NoCounter, in.Sector = true, nil })
	stories := func(v Verdict) (doubleSold, told int) {
		for _, x := range v.Violations {
			if x.Check == CheckDoubleSold {
				doubleSold++
				told += len(x.Story)
			}
		}
		return doubleSold, told
	}
	if n, told := stories(Check(in)); n != 1 || told == 0 {
		t.Fatalf("intact: %d double-sold violations with %d story lines, want 1 with a story", n, told)
	}
	changed := in.with(func(in *Input) {
		in.Integrity = []folder.Problem{{File: folder.HistoryFile, Changed: true,
			Detail: "history.jsonl does not match the SHA-256 manifest.json recorded for it (changed after the run)"}}
	})
	got := Check(changed)
	if n, told := stories(got); got.Status != Invalid || n != 1 || told != 0 {
		t.Errorf("history changed: %s with %d double-sold violations and %d story lines, want invalid, 1 and none", got.Status, n, told)
	}
}
