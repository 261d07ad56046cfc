package browsertest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPage opens a page that logs an error and fetches a second URL: the
// text is read, the error and both requests are recorded, a screenshot
// is taken.
func TestPage(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (1.7s in a -short run): skipped by -short (make test runs it)")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/x" {
			w.Write([]byte("{}"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><h1 id="h">hello</h1><script>console.error("boom"); fetch("/x")</script></body></html>`))
	}))
	defer srv.Close()
	p := New(t)
	p.Do(chromedp.Navigate(srv.URL))
	text := Get(p, chromedp.Text("#h"))
	Get(p, chromedp.Poll[bool](`performance.getEntriesByType("resource").length > 0`))
	if text != "hello" {
		t.Errorf("text %q, want hello", text)
	}
	if errs := p.Errors(); len(errs) != 1 || !strings.Contains(errs[0], "boom") {
		t.Errorf("errors %q, want one with boom", errs)
	}
	// Chromium may also ask for /favicon.ico: a page that must make no
	// request declares its icon inline (<link rel="icon" href="data:,">).
	if reqs := p.Requests(); len(reqs) < 2 || reqs[0] != srv.URL+"/" || reqs[1] != srv.URL+"/x" {
		t.Errorf("requests %q, want the page, then /x", reqs)
	}
	p.Screenshot("hello")
}
