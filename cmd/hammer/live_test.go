package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// liveResult is how a hammer run in the background ended.
type liveResult struct {
	code           int
	stdout, stderr string
}

// urlWriter keeps what hammer writes and hands over the live page's URL
// as soon as it is printed.
type urlWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	url  chan string
	sent bool
}

// liveURL is the line hammer prints once the live page listens.
var liveURL = regexp.MustCompile(`live page on (http://\S+/) `)

func (w *urlWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := liveURL.FindStringSubmatch(w.buf.String()); m != nil && !w.sent {
		w.sent = true
		w.url <- m[1]
	}
	return len(p), nil
}

func (w *urlWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startLive runs hammer with args in-process in the background and
// returns the live page's URL once it listens, and the run's end.
func startLive(t *testing.T, args ...string) (string, <-chan liveResult) {
	t.Helper()
	errw := &urlWriter{url: make(chan string, 1)}
	var out bytes.Buffer
	done := make(chan liveResult, 1)
	go func() {
		code := run(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: errw})
		done <- liveResult{code: code, stdout: out.String(), stderr: errw.String()}
	}()
	select {
	case url := <-errw.url:
		return url, done
	case r := <-done:
		t.Fatalf("hammer ended before its live page listened: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("no live page URL printed within 30s; stderr so far:\n%s", errw.String())
	}
	return "", nil
}

// attemptsTotal sums hammer_attempts_total over every label in a scrape.
var attemptsLine = regexp.MustCompile(`(?m)^hammer_attempts_total\{[^}]*\} (\S+)$`)

func scrapeAttempts(url string) (float64, bool) {
	resp, err := http.Get(url + "metrics")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	sum := 0.0
	for _, m := range attemptsLine.FindAllStringSubmatch(string(body), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		sum += v
	}
	return sum, true
}

// sseVerdict reads a live stream until its end and returns the event
// types seen and the verdict's data.
func sseVerdict(t *testing.T, url string) ([]string, string) {
	t.Helper()
	resp, err := http.Get(url + "events")
	if err != nil {
		t.Errorf("events: %v", err)
		return nil, ""
	}
	defer resp.Body.Close()
	var types []string
	verdict, typ := "", ""
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
			types = append(types, typ)
		case strings.HasPrefix(line, "data: ") && typ == "verdict":
			verdict = strings.TrimPrefix(line, "data: ")
		}
		if typ == "end" && line == "" {
			break
		}
	}
	return types, verdict
}

// TestLiveRun: with --live, /metrics shows the attempts rising while an
// open-model race runs, and the event stream delivers the verdict, with
// a link to the report, before hammer exits.
func TestLiveRun(t *testing.T) {
	if testing.Short() {
		t.Skip("races against the test stack (not in -short)")
	}
	dir := t.TempDir() + "/out"
	args := append([]string{"run", "--mode", "update-only", "--procs", "2", "--rate", "200", "--duration", "4s", "--seats", "1000",
		"--quiet", "--out", dir, "--live", "127.0.0.1:0"}, stackArgs(t)...)
	url, done := startLive(t, args...)
	type sse struct {
		types   []string
		verdict string
	}
	stream := make(chan sse, 1)
	go func() {
		types, verdict := sseVerdict(t, url)
		stream <- sse{types, verdict}
	}()
	var seen []float64
	var res liveResult
	tk := time.NewTicker(400 * time.Millisecond)
	defer tk.Stop()
scrape:
	for {
		select {
		case res = <-done:
			break scrape
		case <-tk.C:
			if v, ok := scrapeAttempts(url); ok && (len(seen) == 0 || v != seen[len(seen)-1]) {
				seen = append(seen, v)
			}
		}
	}
	if res.code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	rising := 0
	for i := 1; i < len(seen); i++ {
		if seen[i] > seen[i-1] && seen[i-1] > 0 {
			rising++
		}
	}
	if rising < 2 {
		t.Errorf("hammer_attempts_total over the race %v: want it seen rising at least twice", seen)
	}
	s := <-stream
	got := strings.Join(s.types, " ")
	if !strings.HasPrefix(got, "hello race") || !strings.Contains(got, "tick") || !strings.HasSuffix(got, "done verdict end") {
		t.Errorf("events %q, want hello, race, ticks, done, verdict, end", got)
	}
	var v struct {
		Runs []struct {
			Run, Verdict string
			Sold         int
		}
		ExitCode int `json:"exit_code"`
		Report   string
	}
	if err := json.Unmarshal([]byte(s.verdict), &v); err != nil {
		t.Fatalf("verdict %q: %v", s.verdict, err)
	}
	if len(v.Runs) != 1 || v.Runs[0].Verdict != "valid" || v.Runs[0].Sold != 800 || v.ExitCode != 0 || !strings.HasPrefix(v.Report, "/report.") {
		t.Errorf("verdict %s, want update-only valid with 800 sold, exit 0 and a report", s.verdict)
	}
	// run has no expectation: the verdict says none, met or not.
	if strings.Contains(s.verdict, "expectation_met") || strings.Contains(s.verdict, `"expected"`) {
		t.Errorf("verdict %s of a run without an expectation names one", s.verdict)
	}
	if _, err := http.Get(url); err == nil {
		t.Error("the live server still answers after hammer exited")
	}
}

// TestLiveAddrRefused: a port in use is refused before anything starts,
// in one line; a bare port listens on loopback.
func TestLiveAddr(t *testing.T) {
	for _, c := range []struct{ arg, addr string }{
		{"8080", "127.0.0.1:8080"}, {":8080", "127.0.0.1:8080"}, {"localhost:0", "localhost:0"},
		{"0.0.0.0:9", "0.0.0.0:9"}, {"[::1]:9", "[::1]:9"},
	} {
		l := liveFlags{arg: c.arg}
		if err := l.check(); err != nil || l.addr != c.addr {
			t.Errorf("--live %s: addr %q, err %v; want %q", c.arg, l.addr, err, c.addr)
		}
		if want := c.arg == "0.0.0.0:9"; l.public != want {
			t.Errorf("--live %s: public %v, want %v", c.arg, l.public, want)
		}
	}
}
