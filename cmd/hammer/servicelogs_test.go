package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestServiceLogs races a real Node service that fails as services do:
// one crashes on its first reservation, one answers 500 and logs why. Each
// replica's output lands in the results folder, the reports link it, and
// the unknown verdict quotes what the service said: the crash's error and
// the head of its stack (not Node's version line, which it printed last),
// and the line a 500 was logged with.
func TestServiceLogs(t *testing.T) {
	stacktest.Get(t) // first: skips under -short
	tests := []struct {
		variant string
		// quote is what the verdict must quote of the replica's log.
		quote *regexp.Regexp
		// last is the first of the last lines summary.json keeps.
		last string
	}{
		{"crash", regexp.MustCompile(`replica \d \(pid \d+\) exit status 1: Error: seat map not loaded: cannot reserve in sector 1 \| at reserve \(\S+server\.js:\d+:\d+\)`),
			"Error: seat map not loaded: cannot reserve in sector 1"},
		{"500", regexp.MustCompile(`status 500 matched no response rule: \{"error":"internal"\}\); replica (\d) logged last: .*reserve failed: relation "sales" does not exist \(logs/500\.replica-(\d)\.log\)`),
			"faulty (500) listening on "},
	}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "out")
			// Not quiet: the progress lines on stderr (no terminal) are
			// checked too.
			args := slices.DeleteFunc(serviceArgs(t, dir), func(a string) bool { return a == "--quiet" })
			code, stdout, stderr := hammer(t, append([]string{"run", "--target", "testdata/faulty/target.yaml", "--variant", tt.variant}, args...)...)
			if code != exitInfra {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitInfra, stdout, stderr)
			}
			// The build and the replicas' start are said as they happen,
			// before the race's attempts are counted.
			progress := regexp.MustCompile(`(?s)building faulty \(node --check server\.js\) …\nbuilt faulty in \S+\n.*` +
				tt.variant + `: starting 3 replicas of faulty …\n.*` +
				tt.variant + `: starting 3 replicas of faulty … ready in \d+(\.\d+)?m?s\n.*` + tt.variant + `: \d+/100 attempts`)
			if !progress.MatchString(stderr) {
				t.Errorf("stderr does not match %s:\n%s", progress, stderr)
			}
			m := tt.quote.FindStringSubmatch(stdout)
			if m == nil {
				t.Fatalf("stdout does not match %s:\n%s", tt.quote, stdout)
			}
			if len(m) == 3 && m[1] != m[2] {
				t.Errorf("quotes replica %s but names the log of replica %s", m[1], m[2])
			}
			if strings.Contains(stdout, ": Node.js v") {
				t.Errorf("stdout quotes Node's version line:\n%s", stdout)
			}
			run := readSummary(t, dir).Runs[0]
			if len(run.ReplicaLogs) != 3 {
				t.Fatalf("summary.json lists %d replica logs, want 3: %+v", len(run.ReplicaLogs), run.ReplicaLogs)
			}
			md, err := os.ReadFile(filepath.Join(dir, folder.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(filepath.Join(dir, folder.HTMLFile))
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range run.ReplicaLogs {
				file := folder.ReplicaLogFile(tt.variant, i)
				if l.Replica != i || l.File != file {
					t.Errorf("log %d: replica %d in %q, want replica %d in %q", i, l.Replica, l.File, i, file)
				}
				if len(l.Last) == 0 || !strings.HasPrefix(l.Last[0], tt.last) {
					t.Errorf("replica %d's last lines %q, want them to start with %q", i, l.Last, tt.last)
				}
				text, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(string(text), "[hammer] replica "+string(rune('0'+i))+" started: pid ") {
					t.Errorf("%s does not start with the replica's start:\n%s", file, text)
				}
				if int64(len(text)) != l.Written || l.Cut != 0 {
					t.Errorf("%s holds %d bytes, summary says %d written and %d cut", file, len(text), l.Written, l.Cut)
				}
				if tt.variant == "crash" && !strings.Contains(string(text), "\nNode.js v") {
					t.Errorf("%s lacks Node's last line: the log is not whole:\n%s", file, text)
				}
				if !strings.Contains(string(md), "]("+file+")") {
					t.Errorf("report.md does not link %s", file)
				}
				if !strings.Contains(string(page), `<a href="`+file+`">replica`) {
					t.Errorf("report.html does not link %s", file)
				}
			}
		})
	}
}
