package live

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startServer serves a new hub on a free loopback port.
func startServer(t *testing.T, grace time.Duration) (*Server, *Hub, *Metrics, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var hub *Hub
	m := NewMetrics(func() int { return hub.Clients() })
	hub = NewHub(8, m.Dropped)
	hub.SetHello(Hello("run", "test-run", 8))
	dir := t.TempDir()
	s := NewServer(ServerOptions{Listener: ln, Hub: hub, Metrics: m, Dir: dir, Grace: grace})
	s.Start()
	t.Cleanup(s.Close)
	return s, hub, m, dir
}

// sseEvent is one event as read off a stream.
type sseEvent struct{ typ, data string }

// readEvents reads events from r into a channel until it ends.
func readEvents(r io.Reader) <-chan sseEvent {
	out := make(chan sseEvent, 1024)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.typ = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case line == "" && ev.typ != "":
				out <- ev
				ev = sseEvent{}
			}
		}
	}()
	return out
}

// next returns the next event, failing the test after a deadline.
func next(t *testing.T, evs <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-evs:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return sseEvent{}
}

// TestServerStream: a browser gets the hello, what was published, then
// the verdict and the end when the hub closes; once it leaves, Close
// does not wait out the grace.
func TestServerStream(t *testing.T) {
	s, hub, _, _ := startServer(t, 10*time.Second)
	hub.Publish(newMessage(TypeRace, RaceEvent{Run: "none"}), "none")
	resp, err := http.Get(s.URL() + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	evs := readEvents(resp.Body)
	for _, want := range []string{TypeHello, TypeRace} {
		if ev := next(t, evs); ev.typ != want {
			t.Fatalf("event %q, want %q", ev.typ, want)
		}
	}
	hub.Publish(tick("none", 3), "none")
	if ev := next(t, evs); ev.typ != TypeTick || !strings.Contains(ev.data, `"attempts":3`) {
		t.Fatalf("event %+v, want the tick", ev)
	}
	hub.Close(newMessage(TypeVerdict, VerdictEvent{ExitCode: 1}), newMessage(TypeEnd, EndEvent{Why: "done"}))
	for _, want := range []string{TypeVerdict, TypeEnd} {
		if ev := next(t, evs); ev.typ != want {
			t.Fatalf("event %q, want %q", ev.typ, want)
		}
	}
	resp.Body.Close() // the page closes its EventSource
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s after the browser left, want well under the 10s grace", d)
	}
}

// TestServerStuckBrowser: a browser that connects and never reads
// neither slows publishing nor keeps hammer past the grace; its losses
// show in /metrics.
func TestServerStuckBrowser(t *testing.T) {
	s, hub, _, _ := startServer(t, 300*time.Millisecond)
	conn, err := net.Dial("tcp", s.o.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for hub.Clients() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	big := strings.Repeat("x", 4096)
	start := time.Now()
	for i := range 20000 { // ~80 MB offered: far past the socket's buffers
		hub.Publish(newMessage(TypeFault, FaultEvent{Detail: big, T: float64(i)}), "r")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("publishing to a stuck browser took %s", d)
	}
	metrics := get(t, s.URL()+"metrics", "")
	m := regexp.MustCompile(`(?m)^hammer_live_events_dropped_total (\d+)`).FindStringSubmatch(metrics)
	if m == nil || m[1] == "0" {
		t.Errorf("/metrics shows no dropped events:\n%s", grepLines(metrics, "hammer_live"))
	}
	hub.Close(newMessage(TypeEnd, EndEvent{Why: "done"}))
	start = time.Now()
	s.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s with a stuck browser, want about the 300ms grace", d)
	}
}

// TestServerPages: the page loads nothing from elsewhere, a request
// naming another host is refused, the report is served once written.
func TestServerPages(t *testing.T) {
	s, _, _, dir := startServer(t, time.Second)
	page := get(t, s.URL(), "")
	if !strings.Contains(page, `<link rel="icon" href="data:,">`) || !strings.Contains(page, "uPlot") {
		t.Error("the page lacks its icon or uPlot")
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`).FindString(page); m != "" {
		t.Errorf("the page loads from elsewhere: %q", m)
	}
	req, _ := http.NewRequest("GET", s.URL(), nil)
	req.Host = "attacker.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a request for attacker.example got %d, want %d", resp.StatusCode, http.StatusMisdirectedRequest)
	}
	if got := s.Report(); got != "" {
		t.Errorf("Report() = %q before any report, want none", got)
	}
	if err := os.WriteFile(filepath.Join(dir, ReportMD), []byte("# report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.Report(); got != "/"+ReportMD {
		t.Errorf("Report() = %q, want /report.md", got)
	}
	if err := os.WriteFile(filepath.Join(dir, ReportHTML), []byte("<p>report</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.Report(); got != "/"+ReportHTML {
		t.Errorf("Report() = %q, want /report.html once written", got)
	}
	if body := get(t, s.URL()+ReportHTML, "text/html"); body != "<p>report</p>" {
		t.Errorf("/report.html = %q", body)
	}
}

// get fetches url, checks the status and the content type's prefix.
func get(t *testing.T, url, contentType string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), contentType) {
		t.Fatalf("GET %s: %s, %s", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	return string(body)
}

// grepLines are the lines of text that hold s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
