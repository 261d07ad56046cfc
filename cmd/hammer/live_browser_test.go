package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hammer-load/hammer/internal/browsertest"
)

// TestLivePage opens the live page of an open-model lock-only race under
// the pause fault in headless Chromium: the sold count rises while the
// race runs, the fault strikes are listed as they begin and once
// recorded, the verdict appears at the
// end with a link to the report, the page logs no error and asks
// nothing of any other server. Screenshots: live-racing.png during the
// race, live-verdict.png at the end.
func TestLivePage(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium against a race on the test stack (not in -short)")
	}
	p := browsertest.New(t) // the browser first: it takes a moment to start
	dir := t.TempDir() + "/out"
	args := append([]string{"run", "--mode", "lock-only", "--fault", "pause", "--procs", "4", "--rate", "200", "--duration", "4s",
		"--seats", "2000", "--quiet", "--out", dir, "--live", "127.0.0.1:0"}, stackArgs(t)...)
	url, done := startLive(t, args...)
	p.Do(chromedp.Navigate(url))

	// Read the sold card while the race runs.
	var seen []string
	shot, striking := false, false
	var res liveResult
	deadline := time.After(60 * time.Second)
watch:
	for {
		select {
		case res = <-done:
			break watch
		case <-deadline:
			t.Fatal("hammer did not end within 60s")
		case <-time.After(250 * time.Millisecond):
			v := browsertest.Get(p, chromedp.Evaluate[string](`document.getElementById("c-sold").textContent`))
			striking = striking || browsertest.Get(p, chromedp.Evaluate[bool](`!!document.querySelector("#faults li.pending")`))
			if len(seen) == 0 || v != seen[len(seen)-1] {
				seen = append(seen, v)
			}
			if len(seen) >= 4 && !shot {
				p.Screenshot("live-racing")
				shot = true
			}
		}
	}
	if res.code != exitFail && res.code != exitOK {
		t.Fatalf("exit %d, want 0 or 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	rising := 0
	for i := 1; i < len(seen); i++ {
		if soldOf(seen[i]) > soldOf(seen[i-1]) && soldOf(seen[i-1]) > 0 {
			rising++
		}
	}
	if rising < 2 {
		t.Errorf("the sold card over the race read %q: want it seen rising at least twice", seen)
	}
	banner := browsertest.Get(p, chromedp.Poll[string](`document.getElementById("banner").className || false`,
		chromedp.WithPollingTimeout(10*time.Second)))
	title := browsertest.Get(p, chromedp.Text("#banner-title"))
	want := map[int]string{exitOK: "valid", exitFail: "invalid"}[res.code]
	if banner != want || !strings.HasPrefix(title, want) {
		t.Errorf("banner %q %q, want %s as hammer exited %d", banner, title, want, res.code)
	}
	link := browsertest.Get(p, chromedp.Poll[string](`(function(){const a=document.getElementById("report-link");return a && a.href.startsWith("blob:") && a.textContent})()`,
		chromedp.WithPollingTimeout(5*time.Second)))
	if !strings.HasPrefix(link, "open report.") {
		t.Errorf("report link %q", link)
	}
	faults := browsertest.Get(p, chromedp.Evaluate[int](`document.querySelectorAll("#faults li:not(#no-faults)").length`))
	if faults < 1 {
		t.Error("no fault strike listed")
	}
	if !striking {
		t.Error("no strike was listed as it began (a pause lasts 1.5 s)")
	}
	status := browsertest.Get(p, chromedp.Poll[string](`(function(){const s=document.getElementById("status").textContent;return s==="done"&&s})()`,
		chromedp.WithPollingTimeout(5*time.Second)))
	if status != "done" {
		t.Errorf("status %q, want done", status)
	}
	p.Screenshot("live-verdict")
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	for _, r := range p.Requests() {
		if !strings.HasPrefix(r, url) && !strings.HasPrefix(r, "blob:") && !strings.HasPrefix(r, "data:") {
			t.Errorf("the page asked for %s", r)
		}
	}
}

// soldOf is the sold count of the card's "123 / 2,000".
func soldOf(card string) int {
	n := 0
	for _, r := range strings.Split(card, "/")[0] {
		if r >= '0' && r <= '9' {
			n = n*10 + int(r-'0')
		}
	}
	return n
}
