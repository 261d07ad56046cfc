package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/spans/spanstest"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/internal/tracecontext"
)

// storyTrace finds "p0-g3-a0 (process 0, trace <id>)" in a story line.
var storyTrace = regexp.MustCompile(`(p\d+-g\d+-a\d+) \(process \d+, trace ([0-9a-f]{32})\)`)

// TestServiceTraces races the naive variant of the Go example with
// --otlp pointed at a collector in the test: every attempt records the
// trace of the traceparent its request carried, the story of the
// oversold seat names the traces of its requests (in violations.txt and
// report.html too), and the collector receives one span per attempt with
// the trace id and span id its request sent. A collector that cannot be
// reached is a warning; the verdict and the exit code stay.
func TestServiceTraces(t *testing.T) {
	stacktest.Get(t) // first: skips under -short
	t.Run("exported", func(t *testing.T) {
		t.Parallel()
		c := spanstest.Start(t)
		dir := filepath.Join(t.TempDir(), "out")
		// Not --quiet: the line that says where the spans went is printed.
		args := slices.DeleteFunc(serviceArgs(t, dir), func(a string) bool { return a == "--quiet" })
		code, stdout, stderr := hammer(t, append([]string{"run", "--target", "../../examples/ticketd/target.yaml",
			"--variant", "naive", "--otlp", c.URL}, args...)...)
		if code != exitFail {
			t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitFail, stdout, stderr)
		}
		attempts := tracedAttempts(t, dir)
		checkStories(t, dir, attempts)
		got := c.Spans()
		if len(got) != len(attempts) {
			t.Fatalf("the collector got %d spans for %d attempts\nstderr: %s", len(got), len(attempts), stderr)
		}
		for _, s := range got {
			a, ok := attempts[s.Trace]
			if !ok || s.ID != a.Span || s.Attrs["hammer.request_id"] != a.RequestID || s.Attrs["hammer.variant"] != "naive" {
				t.Fatalf("span %+v is not the span of an attempt's request (trace %s span %s)", s, a.Trace, a.Span)
			}
		}
		if !strings.Contains(stderr, fmt.Sprintf("--otlp: %d spans exported to %s/v1/traces", len(got), c.URL)) {
			t.Errorf("stderr does not say the spans were exported:\n%s", stderr)
		}
	})
	t.Run("collector unreachable", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + ln.Addr().String()
		ln.Close() // nothing listens there now
		dir := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := hammer(t, append([]string{"run", "--target", "../../examples/ticketd/target.yaml",
			"--variant", "naive", "--otlp", closed}, serviceArgs(t, dir)...)...)
		if code != exitFail || readSummary(t, dir).Runs[0].Verdict != "invalid" {
			t.Fatalf("exit %d, want %d and the oversell caught\nstdout: %s\nstderr: %s", code, exitFail, stdout, stderr)
		}
		if !regexp.MustCompile(`(?m)^hammer run: warning: --otlp: 0 spans exported to ` + regexp.QuoteMeta(closed) +
			`/v1/traces, then: .*; the verdict does not depend on it$`).MatchString(stderr) {
			t.Errorf("stderr has no one-line warning about the collector:\n%s", stderr)
		}
		tracedAttempts(t, dir)
	})
}

// tracedAttempts loads the run in dir and checks that every attempt
// recorded a trace id and a span id of its own; it returns them by trace.
func tracedAttempts(t *testing.T, dir string) map[string]history.Attempt {
	t.Helper()
	f, err := folder.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	byTrace := map[string]history.Attempt{}
	for _, a := range f.Attempts {
		_, ok1 := tracecontext.ParseTraceID(a.Trace)
		_, ok2 := tracecontext.ParseSpanID(a.Span)
		if !ok1 || !ok2 {
			t.Fatalf("attempt %s recorded trace %q span %q", a.RequestID, a.Trace, a.Span)
		}
		if prev, ok := byTrace[a.Trace]; ok {
			t.Fatalf("attempts %s and %s share trace %s", prev.RequestID, a.RequestID, a.Trace)
		}
		byTrace[a.Trace] = a
	}
	if len(byTrace) != 100 {
		t.Fatalf("%d attempts with a trace, want 100", len(byTrace))
	}
	return byTrace
}

// checkStories checks that the story of the oversell names the trace of
// both requests that bought its seat, as recorded, in summary.json,
// violations.txt and report.html.
func checkStories(t *testing.T, dir string, attempts map[string]history.Attempt) {
	t.Helper()
	run := readSummary(t, dir).Runs[0]
	var story []string
	for _, v := range run.Violations {
		if v.Check == "oversell" {
			story = v.Story
		}
	}
	t.Logf("the oversell's story:\n%s", strings.Join(story, "\n"))
	named := map[string]string{} // request id → trace the story names
	for _, line := range story {
		for _, m := range storyTrace.FindAllStringSubmatch(line, -1) {
			named[m[1]] = m[2]
		}
	}
	if len(named) < 2 {
		t.Fatalf("the oversell's story names %d traces, want both requests':\n%s", len(named), strings.Join(story, "\n"))
	}
	for id, tr := range named {
		if a, ok := attempts[tr]; !ok || a.RequestID != id {
			t.Errorf("the story names trace %s for %s, which recorded another", tr, id)
		}
		for _, file := range []string{folder.ViolationsFile, folder.HTMLFile} {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "trace "+tr) {
				t.Errorf("%s does not name trace %s of %s", file, tr, id)
			}
		}
	}
}
