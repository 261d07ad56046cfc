package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/linearize"
	"github.com/hammer-load/hammer/report/chart"
	"github.com/hammer-load/hammer/report/html/uplot"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

// styles matches the inlined stylesheets, which the golden file leaves
// out (they are files of their own).
var styles = regexp.MustCompile(`(?s)<style>.*?</style>`)

// TestHTMLGolden renders report.html of the sample summary without
// charts: everything a reader without JavaScript sees.
func TestHTMLGolden(t *testing.T) {
	s := sample(true)
	s.Runs[0].Checkers = &verify.Checkers{Hammer: verify.Invalid, Porcupine: linearize.Illegal, PorcupineMs: 4.2, Agreement: verify.Agree}
	s.Runs[1].Undetermined = []string{"the ledger could not be read"}
	s.Skipped = []string{"lock-only/failover: needs --stack local"}
	var b strings.Builder
	if err := writeHTML(&b, htmlInput{s: s, pages: map[string]string{"none": folder.PorcupineFile("none")}}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.Contains(got, "<script") {
		t.Errorf("a page without charts has a script")
	}
	golden(t, "report.html.golden", styles.ReplaceAllString(got, "<style>…</style>"))
}

// TestHTMLEscapes: what a results folder holds (run names, details,
// stories) is escaped, so a folder cannot put markup or script into the
// page, also inside the chart data's script.
func TestHTMLEscapes(t *testing.T) {
	evil := `</script><img src=x onerror=alert(1)>`
	s := Summary{RunID: "r", Runs: []RunSummary{{Name: "none" + evil, Mode: "none", Verdict: verify.Invalid,
		Violations: []verify.Violation{{Check: "oversell", Detail: evil, Story: []string{evil, "=> " + evil}}}}}}
	d := chart.Data{RunID: "r", Runs: []chart.Run{{Name: "none" + evil, Mode: "none"}},
		Sold: []chart.Sold{{Run: "none" + evil, Steps: []chart.Step{{Ms: 0, N: 0}}}}}
	var b strings.Builder
	if err := writeHTML(&b, htmlInput{s: s, charts: &d}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.Contains(got, "<img") {
		t.Errorf("the page holds the folder's markup unescaped")
	}
	if n := strings.Count(strings.ToLower(got), "</script"); n != strings.Count(got, "<script") {
		t.Errorf("%d </script for %d scripts: data closed a script", n, strings.Count(got, "<script"))
	}
	if !strings.Contains(got, "&lt;img src=x") {
		t.Errorf("the escaped detail is missing")
	}
}

// TestVendoredScripts: the scripts inlined into the page can close no
// <script> element and ask for no URL.
func TestVendoredScripts(t *testing.T) {
	js, err := pageFiles.ReadFile("html/page.js")
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"uPlot": uplot.JS, "page.js": string(js), "uPlot CSS": uplot.CSS} {
		low := strings.ToLower(src)
		for _, bad := range []string{"</script", "sourcemappingurl", "@import", "url(http", "fetch("} {
			if strings.Contains(low, bad) {
				t.Errorf("%s holds %q", name, bad)
			}
		}
	}
	if !strings.Contains(uplot.JS, "uPlot") || !strings.Contains(uplot.License, "MIT") || uplot.Version == "" {
		t.Errorf("the vendored uPlot lacks its code, licence or version")
	}
}

// TestGrid lays a gate out as mode × fault, coloured by verdict against
// expectation.
func TestGrid(t *testing.T) {
	s := Summary{Runs: []RunSummary{
		{Name: "none", Mode: "none", Verdict: verify.Invalid, Expected: scenarios.Unsafe, ExpectOK: true},
		{Name: "lock-only", Mode: "lock-only", Verdict: verify.Valid, Expected: scenarios.Safe, ExpectOK: true},
		{Name: "lock-only/pause+extend", Mode: "lock-only", Verdict: verify.Valid, Expected: scenarios.Unsafe},
		{Name: "lock-only+no-hint", Mode: "lock-only", Verdict: verify.Unknown, Expected: scenarios.Safe},
	}}
	g := buildGrid(s)
	if g == nil {
		t.Fatal("no grid")
	}
	if want := []string{"none", "lock-only"}; strings.Join(g.Modes, ",") != strings.Join(want, ",") {
		t.Errorf("columns %q, want %q", g.Modes, want)
	}
	var got []string
	for _, r := range g.Rows {
		for i, c := range r.Cells {
			if c != nil {
				got = append(got, g.Modes[i]+"|"+r.Fault+"|"+c.Class+"|"+c.Anchor)
			}
		}
	}
	want := []string{"none|none|ok|run-none", "lock-only|none|ok|run-lock-only",
		"lock-only|pause+extend|unknown|run-lock-only_pause_extend", "lock-only|none+no-hint|unknown|run-lock-only_no-hint"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cells:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g := buildGrid(Summary{Runs: s.Runs[:1]}); g != nil {
		t.Errorf("a grid for a single run")
	}
}

// TestTickLabel: the story's time axis has as many decimals as its step.
func TestTickLabel(t *testing.T) {
	tests := []struct {
		name    string
		t, step float64
		want    string
	}{
		{"zero", 0, 500e6, "+0ms"},
		{"rounding below zero", -1e-3, 500e6, "+0ms"},
		{"milliseconds", 500e6, 500e6, "+500ms"},
		{"seconds", 1.5e9, 500e6, "+1.5s"},
		{"fine steps", 512.5e6, 0.5e6, "+512.5ms"},
		{"finer", 512.25e6, 0.05e6, "+512.25ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tickLabel(tt.t, tt.step); got != tt.want {
				t.Errorf("tickLabel(%g, %g) = %q, want %q", tt.t, tt.step, got, tt.want)
			}
		})
	}
}

// goAt is the go signal of the stories' runs.
const goAt = int64(1e12)

// ns is an instant ms milliseconds after goAt.
func ns(ms float64) int64 { return goAt + int64(ms*1e6) }

// pauseRun is a lock-only run with a 500 ms lock TTL.
func pauseRun() history.Run {
	return history.Run{Name: "lock-only/pause", Mode: scenarios.LockOnly, GoAt: goAt, LockTTL: int64(500 * time.Millisecond)}
}

// TestDrawStoryPause draws the story of a seat sold twice: a holder
// paused past its TTL, and a second holder that took the lock meanwhile.
func TestDrawStoryPause(t *testing.T) {
	avail := 19
	paused := history.Attempt{RequestID: "p0-g8-a0", Invoke: ns(1), LockAcquired: ns(5), ReadAt: ns(5.2), ReadAvailable: &avail,
		DBEnd: ns(1505.9), LockReleasing: ns(1506), LockReleased: ns(1506.2), Complete: ns(1506.3), Outcome: history.Sold,
		Seat: 2, LockLost: true}
	second := history.Attempt{RequestID: "p0-g7-a0", Proc: 0, Invoke: ns(2), LockAcquired: ns(512.3), ReadAt: ns(512.7),
		ReadAvailable: &avail, DBEnd: ns(513.1), LockReleasing: ns(513.2), Complete: ns(513.5), Outcome: history.Sold, Seat: 2}
	other := history.Attempt{RequestID: "p1-g1-a0", Invoke: ns(1), Complete: ns(2), Outcome: history.SoldOut}
	rec := history.Records{Attempts: []history.Attempt{other, paused, second},
		Faults: []history.FaultEvent{{Fault: scenarios.Pause, RequestID: "p0-g8-a0", Start: ns(5.2), End: ns(1505.3), Detail: "paused 1.5s"}}}
	v := verify.Violation{Check: verify.CheckDoubleSold, Actors: []string{"p0-g7-a0", "p0-g8-a0"}, Seat: 2}
	pics := drawStory(pauseRun(), rec, v)
	if len(pics) != 2 || pics[0].Zoom || !pics[1].Zoom {
		t.Fatalf("%d pictures, want the whole story and a zoom", len(pics))
	}
	whole := pics[0]
	if len(whole.Lanes) != 2 || whole.Lanes[0].Request != "p0-g7-a0" || whole.Lanes[1].Request != "p0-g8-a0" {
		t.Fatalf("lanes %+v, want p0-g7-a0 then p0-g8-a0", whole.Lanes)
	}
	if o := whole.Overlap; o == nil || o.FromMs != 512.3 || o.ToMs != 513.1 {
		t.Errorf("overlap %+v, want +512.3 to +513.1", whole.Overlap)
	}
	classes := func(l lane) string {
		var out []string
		for _, b := range l.Bars {
			out = append(out, b.Class)
		}
		for _, m := range l.Marks {
			out = append(out, m.Class)
		}
		return strings.Join(out, ",")
	}
	if got, want := classes(whole.Lanes[1]), "fault,attempt,held,held expired,ttl,read,sale double,answer"; got != want {
		t.Errorf("the paused holder's lane: %s, want %s", got, want)
	}
	if got, want := classes(whole.Lanes[0]), "attempt,held,read,sale double,answer"; got != want {
		t.Errorf("the second holder's lane: %s, want %s", got, want)
	}
	if b := whole.Lanes[1].Bars[3]; b.FromMs != 505 || b.ToMs != 1506 {
		t.Errorf("the lock past its TTL runs +%g to +%g, want +505 to +1506", b.FromMs, b.ToMs)
	}
	zoom := pics[1]
	if zoom.FromMs > 512.3 || zoom.ToMs < 513.5 || zoom.ToMs-zoom.FromMs > 5 {
		t.Errorf("zoom shows +%g to +%g, want about +512.3 to +513.5", zoom.FromMs, zoom.ToMs)
	}
	for _, b := range zoom.Lanes[1].Bars {
		if b.X < lanesLabel || b.X+b.W > lanesWidth-lanesRight+0.01 {
			t.Errorf("zoomed bar %s at %g+%g leaves the plot", b.Class, b.X, b.W)
		}
	}
}

// TestDrawStoryService draws the story of a user's service: the replica
// each request went to and what it answered.
func TestDrawStoryService(t *testing.T) {
	a := history.Attempt{RequestID: "p0-g1-a0", Invoke: ns(1), Complete: ns(9), Outcome: history.Sold, Seat: 3, Status: 200,
		Replica: "r0 127.0.0.1:8080", Trace: "4bf92f3577b34da6a3ce929d0e0e4736"}
	b := history.Attempt{RequestID: "p0-g2-a0", Invoke: ns(2), Complete: ns(8), Outcome: history.Sold, Seat: 3, Status: 200,
		Replica: "r1 127.0.0.1:8081"}
	v := verify.Violation{Actors: []string{"p0-g2-a0", "p0-g1-a0"}, Seat: 3}
	pics := drawStory(history.Run{GoAt: goAt}, history.Records{Attempts: []history.Attempt{a, b}}, v)
	if len(pics) != 1 {
		t.Fatalf("%d pictures, want 1", len(pics))
	}
	l := pics[0].Lanes[1]
	if l.Sub != "replica r0 127.0.0.1:8080" || len(l.Marks) != 1 || l.Marks[0].Label != "200 sold seat 3" ||
		l.Marks[0].Class != "answer double" {
		t.Errorf("lane %+v, want replica r0 and the answer 200 sold seat 3 marked double", l)
	}
	if !slices.ContainsFunc(l.Bars, func(b bar) bool {
		return b.Class == "attempt" && strings.HasSuffix(b.Title, "(trace 4bf92f3577b34da6a3ce929d0e0e4736)")
	}) {
		t.Errorf("lane %+v: the attempt's bar does not name its trace", l)
	}
	if pics[0].Overlap != nil {
		t.Errorf("an overlap of lock holders in a run without a lock")
	}
	if drawStory(pauseRun(), history.Records{}, v) != nil {
		t.Errorf("a drawing without attempts")
	}
}

// TestHTMLCapsProblems: a run with many seats sold twice lists the first
// few, each with its story, and says where the rest are.
func TestHTMLCapsProblems(t *testing.T) {
	r := RunSummary{Name: "none", Mode: "none", Verdict: verify.Invalid}
	for i := range 30 {
		r.Violations = append(r.Violations, verify.Violation{Check: verify.CheckDoubleSold,
			Detail: fmt.Sprintf("seat %d sold 2 times", i+1), Story: []string{fmt.Sprintf("=> seat %d story", i+1)}})
	}
	var b strings.Builder
	if err := writeHTML(&b, htmlInput{s: Summary{Runs: []RunSummary{r}}}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if n := strings.Count(got, `<div class="problem">`); n != maxProblems {
		t.Errorf("%d problems listed, want %d", n, maxProblems)
	}
	if !strings.Contains(got, "seat 20 story") || strings.Contains(got, "seat 21 story") || !strings.Contains(got, "and 10 more") {
		t.Errorf("the page does not list the first %d problems with their stories and say 10 more", maxProblems)
	}
}
