package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/internal/browsertest"
)

// skipShort skips a browser test in go test -short (make test-short):
// it races hammer against the shared stack and starts a Chromium.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser test: make test runs it, go test -short does not")
	}
}

// openReport opens a results folder's report.html in a headless
// Chromium and waits until its script has run.
func openReport(t *testing.T, dir string) (*browsertest.Page, string) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join(dir, folder.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + abs
	p := browsertest.New(t)
	p.Do(chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer")))
	return p, url
}

// checkOffline fails t when the page logged an error or asked for
// anything but itself.
func checkOffline(t *testing.T, p *browsertest.Page, url string) {
	t.Helper()
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	for _, r := range p.Requests() {
		if r != url {
			t.Errorf("request %q: report.html must ask for nothing but itself (%s)", r, url)
		}
	}
}

// shoot saves a screenshot of the element sel as name.png in
// $HAMMER_SCREENSHOTS, when set, for a person to look at.
func shoot(t *testing.T, p *browsertest.Page, name, sel string) {
	t.Helper()
	dir := os.Getenv("HAMMER_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := browsertest.Get(p, chromedp.Screenshot(chromedp.CSS(sel)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// storyOverlap is what the page's first drawn story shows: its lanes and
// whether two of them held the lock at once, with the seat sold twice.
type storyOverlap struct {
	Lanes   int  `json:"lanes"`
	Overlap bool `json:"overlap"`
	Seat    bool `json:"seat"`
	Double  int  `json:"double"`
}

// storyScript reads the first drawn story of the page: the lock-held
// bars of each lane, and whether two lanes' bars overlap in time.
const storyScript = `(() => {
	const svg = document.querySelector('svg.timeline');
	if (!svg) return {lanes: 0, overlap: false, seat: false, double: 0};
	const lanes = [...svg.querySelectorAll('g.lane')].map(g =>
		[...g.querySelectorAll('rect.held')].map(r => [+r.dataset.fromMs, +r.dataset.toMs]));
	let overlap = false;
	for (let i = 0; i < lanes.length; i++)
		for (let j = i + 1; j < lanes.length; j++)
			for (const a of lanes[i]) for (const b of lanes[j])
				if (Math.max(a[0], b[0]) < Math.min(a[1], b[1])) overlap = true;
	return {lanes: lanes.length, overlap: overlap, seat: svg.dataset.seat > 0,
		double: svg.querySelectorAll('.mark.double').length};
})()`

// TestReportHTMLPause opens report.html of a real lock-only run whose
// holder is paused past its TTL: the banner says invalid, the story is
// drawn with two holders of the lock at once and the seat both sold, the
// charts are drawn (a click on a run in a legend hides it, a drag zooms,
// hovering shows values), porcupine's
// view is linked, and the page logs no error and asks for nothing but
// itself. `hammer report` rebuilds the page.
func TestReportHTMLPause(t *testing.T) {
	skipShort(t)
	dir := filepath.Join(t.TempDir(), "out")
	args := append([]string{"run", "--mode", "lock-only", "--fault", "pause", "--procs", "2", "--goroutines", "50",
		"--seats", "20", "--quiet", "--out", dir}, stackArgs(t)...)
	if code, stdout, stderr := hammer(t, args...); code != exitFail {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFail, stdout, stderr)
	}
	if err := os.Remove(filepath.Join(dir, folder.HTMLFile)); err != nil {
		t.Fatalf("the run wrote no %s: %v", folder.HTMLFile, err)
	}
	if code, stdout, stderr := hammer(t, "report", dir); code != exitFail {
		t.Fatalf("hammer report: exit %d, want %d: %s", code, exitFail, stderr)
	} else if !strings.Contains(stdout, " (invalid):\n") || !strings.Contains(stdout, "\n  oversell: ") {
		t.Errorf("hammer report exited 1 without the table that says why:\n%s", stdout)
	}
	p, url := openReport(t, dir)
	if got := browsertest.Get(p, chromedp.Text(chromedp.CSS("#verdict"))); strings.ToLower(got) != "invalid" {
		t.Errorf("banner says %q, want invalid", got)
	}
	var s storyOverlap
	s = browsertest.Get(p, chromedp.Evaluate[storyOverlap](storyScript))
	if s.Lanes < 2 || !s.Overlap || !s.Seat || s.Double < 2 {
		t.Errorf("story drawing %+v: want two lanes or more whose lock bars overlap, and the seat sold twice marked on two", s)
	}
	if n := browsertest.Get(p, chromedp.Poll[int](`document.querySelectorAll('.uplot').length`)); n != 5 {
		t.Errorf("%d charts drawn, want 5", n)
	}
	// Clicking the run in the sold chart's legend hides its line.
	legend := `figure[data-chart="sold-over-time"] .u-legend tr.u-series:nth-child(2) th`
	p.Do(chromedp.Click(chromedp.CSS(legend)))
	if shown := browsertest.Get(p, chromedp.Evaluate[bool](`document.querySelector('figure[data-chart="sold-over-time"] .plot').uplot.series[1].show`)); shown {
		t.Errorf("the run's line still shows after a click on its legend entry")
	}
	p.Do(chromedp.Click(chromedp.CSS(legend)))
	checkZoom(t, p)
	if link := browsertest.Get(p, chromedp.Evaluate[string](`document.querySelector('a.porcupine').getAttribute('href')`)); !strings.HasPrefix(link, "porcupine/") {
		t.Errorf("porcupine's view links to %q", link)
	} else if _, err := os.Stat(filepath.Join(dir, link)); err != nil {
		t.Errorf("porcupine's view: %v", err)
	}
	checkOffline(t, p, url)
	p.Screenshot("report-pause")
	shoot(t, p, "report-pause-banner", "header")
	shoot(t, p, "report-pause-story", ".story")
	shoot(t, p, "report-pause-sold", `figure[data-chart="sold-over-time"]`)
}

// checkZoom drags the mouse across the sold chart, as a person would: the
// chart zooms into that time range, and hovering shows values in its
// legend.
func checkZoom(t *testing.T, p *browsertest.Page) {
	t.Helper()
	type box struct{ X, Y, W, H, Min, Max float64 }
	const chart = `document.querySelector('figure[data-chart="sold-over-time"] .plot')`
	b := browsertest.Get(p, chromedp.Evaluate[box](`(() => {
		const el = `+chart+`, o = el.querySelector('.u-over');
		o.scrollIntoView({block: 'center'});
		const r = o.getBoundingClientRect();
		return {x: r.left, y: r.top, w: r.width, h: r.height, min: el.uplot.scales.x.min, max: el.uplot.scales.x.max};
	})()`))
	y, from, to := b.Y+b.H/2, b.X+0.2*b.W, b.X+0.6*b.W
	p.Do(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, from, y),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, from, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (from+to)/2, y, func(e *input.DispatchMouseEventParams) { e.Buttons = 1 }),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, to, y, func(e *input.DispatchMouseEventParams) { e.Buttons = 1 }),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, to, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (from+to)/2, y))
	after := browsertest.Get(p, chromedp.Evaluate[box](`({min: `+chart+`.uplot.scales.x.min, max: `+chart+`.uplot.scales.x.max})`))
	if span := b.Max - b.Min; after.Max-after.Min > 0.6*span || after.Min < b.Min+0.1*span {
		t.Errorf("dragging across 20%%–60%% of the sold chart shows %g–%g ms of %g–%g: want it zoomed in", after.Min, after.Max, b.Min, b.Max)
	}
	hover := browsertest.Get(p, chromedp.Evaluate[string](chart+`.querySelector('.u-legend .u-series .u-value').textContent`))
	if !strings.HasPrefix(hover, "+") {
		t.Errorf("hovering the sold chart shows %q as its time, want +…", hover)
	}
	p.Do(chromedp.DoubleClick(chromedp.CSS(`figure[data-chart="sold-over-time"] .u-over`)))
}

// TestReportHTMLGate opens report.html of a small gate: the grid shows
// each cell coloured by its verdict against its expectation (met, could
// not be shown, missed), and each
// cell links to its run's section; with JavaScript off, the verdict, the
// tables and the grid still show.
func TestReportHTMLGate(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	matrix := filepath.Join(dir, "small.matrix")
	cells := "none none safe\nupdate-only none safe\nlock-plus-update none unsafe\n"
	if err := os.WriteFile(matrix, []byte(cells), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := append([]string{"gate", "--matrix", matrix, "--procs", "2", "--goroutines", "30", "--seats", "10",
		"--quiet", "--out", out}, stackArgs(t)...)
	if code, stdout, stderr := hammer(t, args...); code != exitFail {
		t.Fatalf("exit %d, want %d (none oversells where it must not)\n%s\n%s", code, exitFail, stdout, stderr)
	}
	p, url := openReport(t, out)
	type cell struct {
		Class, Href, Target string
	}
	cellsGot := browsertest.Get(p, chromedp.Evaluate[[]cell](`[...document.querySelectorAll('table.grid td.cell')].map(td => {
		const a = td.querySelector('a'), id = a.getAttribute('href').slice(1);
		return {class: td.className, href: a.getAttribute('href'), target: document.getElementById(id) ? id : ''};
	})`))
	want := []string{"cell fail", "cell ok", "cell unknown"}
	if len(cellsGot) != len(want) {
		t.Fatalf("grid cells %+v, want %d", cellsGot, len(want))
	}
	for i, c := range cellsGot {
		if c.Class != want[i] || c.Target == "" {
			t.Errorf("cell %d: %+v, want class %q and a link to its run's section", i, c, want[i])
		}
	}
	checkOffline(t, p, url)
	p.Screenshot("report-gate")
	shoot(t, p, "report-gate-grid", "#grid")

	// Without JavaScript the verdict, the tables and the grid still read,
	// and the page says where the charts are.
	if _, err := chromedp.Call(p.Ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	p.Do(chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer")))
	type plain struct {
		Verdict            string
		Rows, Cells, Plots int
		NoScript, Hidden   bool
	}
	got := browsertest.Get(p, chromedp.Evaluate[plain](`({
		verdict: document.querySelector('#verdict').textContent,
		rows: document.querySelectorAll('table.runs tbody tr').length,
		cells: document.querySelectorAll('table.grid td.cell a').length,
		plots: document.querySelectorAll('.uplot').length,
		noScript: document.querySelector('#charts').innerText.includes('The charts need JavaScript'),
		hidden: [...document.querySelectorAll('figure.chart, #charts .hint')].every(e => e.hidden),
	})`))
	if want := (plain{Verdict: "invalid", Rows: 3, Cells: 3, Plots: 0, NoScript: true, Hidden: true}); got != want {
		t.Errorf("without JavaScript the page shows %+v, want %+v", got, want)
	}
	shoot(t, p, "report-gate-nojs", "main")
}
