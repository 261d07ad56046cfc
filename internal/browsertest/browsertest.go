// Package browsertest drives a real headless Chromium for the tests of
// the pages hammer writes (report.html) and serves (the live page): a
// page is opened, what it logged, threw and requested is recorded, and
// screenshots are kept for a person to look at.
//
// Chromium is found as $HAMMER_CHROMIUM, else chromium, chromium-browser
// or google-chrome on $PATH. Without one, New skips the test, or fails
// it when HAMMER_REQUIRE_SERVICES=1, as CI sets (.ci/run installs
// Debian's chromium with apt).
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Timeout bounds everything one test does in its browser.
const Timeout = 60 * time.Second

// Page is one browser tab of a test. Ctx runs chromedp actions in it.
type Page struct {
	// Ctx is the tab's chromedp context; it ends with the test.
	Ctx context.Context
	t   testing.TB

	mu       sync.Mutex
	errors   []string
	requests []string
}

// Binary returns the Chromium to run, or "" when there is none.
func Binary() string {
	if p := os.Getenv("HAMMER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts a headless Chromium with one tab for t, closed when t ends.
func New(t testing.TB) *Page {
	t.Helper()
	bin := Binary()
	if bin == "" {
		msg := "browsertest: no chromium on $PATH (apt-get install chromium, or set HAMMER_CHROMIUM)"
		if os.Getenv("HAMMER_REQUIRE_SERVICES") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), Timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	p := &Page{t: t}
	tctx, cancelTab := chromedp.NewContext(actx, chromedp.WithListener(p.record))
	p.Ctx = tctx
	// The first action starts the browser and opens the tab.
	if err := chromedp.Do(tctx); err != nil {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
		t.Fatalf("browsertest: start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	return p
}

// record keeps console errors, uncaught exceptions and every request.
func (p *Page) record(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			msg := ""
			for _, a := range ev.Args {
				msg += string(a.Value) + a.Description + " "
			}
			p.errors = append(p.errors, "console."+string(ev.Type)+": "+msg)
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		p.errors = append(p.errors, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, ev.Request.URL)
	}
}

// Errors returns the console errors and uncaught exceptions so far.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// Requests returns the URL of every request the tab made so far, the
// page's own included.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Do runs chromedp actions in the tab, in order, and fails the test on
// an error.
func (p *Page) Do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.Ctx, steps...); err != nil {
		p.t.Fatalf("browsertest: %v", err)
	}
}

// Get runs one chromedp action in p's tab and returns its value; it
// fails the test on an error.
func Get[T any](p *Page, a chromedp.Action[T]) T {
	p.t.Helper()
	v, err := chromedp.Run(p.Ctx, a)
	if err != nil {
		p.t.Fatalf("browsertest: %v", err)
	}
	return v
}

// Screenshot saves the whole page as name.png in the test's temp dir,
// and also in $HAMMER_SCREENSHOTS when set (to look at after the test),
// and returns the first path.
func (p *Page) Screenshot(name string) string {
	p.t.Helper()
	png := Get(p, chromedp.FullScreenshot(100)) // 100: PNG; any other quality is a JPEG
	path := filepath.Join(p.t.TempDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	if dir := os.Getenv("HAMMER_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
	p.t.Logf("screenshot: %s (%d bytes)", path, len(png))
	return path
}
