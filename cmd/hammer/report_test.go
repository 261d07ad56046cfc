package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenModelReport runs the open model and checks what it leaves: the
// report says latency counts from the intended start, and the folder holds
// the histograms, .hgrm files and charts.
func TestOpenModelReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := append([]string{"run", "--mode", "lock-plus-update", "--rate", "200", "--duration", "500ms",
		"--procs", "2", "--goroutines", "20", "--seats", "20", "--quiet", "--out", dir}, stackArgs(t)...)
	if code, stdout, stderr := hammer(t, args...); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	s := readSummary(t, dir)
	r := s.Runs[0]
	if r.Model != "open" || r.Contenders != 100 || r.Outcomes["sold"] != 20 {
		t.Errorf("model %q, contenders %d, sold %d; want open, 100, 20", r.Model, r.Contenders, r.Outcomes["sold"])
	}
	if r.FloorMs == nil || r.Efficiency != nil {
		t.Errorf("floor %v, efficiency %v; want a floor and no efficiency in the open model", r.FloorMs, r.Efficiency)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "intended start") || strings.Contains(string(md), "Closed model") {
		t.Errorf("report.md does not say the open model counts from the intended start:\n%s", md)
	}
	for _, f := range []string{"histograms.json", "hgrm/lock-plus-update.attempt.hgrm", "hgrm/lock-plus-update.lock_wait.hgrm",
		"latency-spectrum.png", "latency-spectrum.svg", "sold-over-time.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("results folder: %v", err)
		}
	}
}

// TestReportRebuildAndCompare rebuilds the report of a saved folder
// offline and compares two folders.
func TestReportRebuildAndCompare(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		copyDir(t, filepath.Join("testdata", "load-small"), filepath.Join(dir, name))
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	code, stdout, stderr := hammer(t, "report", a)
	if code != exitOK {
		t.Fatalf("report exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"report.md", "summary.json", "phases.png", "lock-wait.svg", "hgrm/none.attempt.hgrm"} {
		if _, err := os.Stat(filepath.Join(a, f)); err != nil {
			t.Errorf("rebuilt folder: %v", err)
		}
	}
	for _, r := range readSummary(t, a).Runs {
		if r.FloorMs == nil || r.Efficiency == nil {
			t.Errorf("rebuilt %s: floor %v, efficiency %v; want both from the manifest's commit latency", r.Name, r.FloorMs, r.Efficiency)
		}
	}
	pngFile, err := os.Open(filepath.Join(a, "latency-spectrum.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer pngFile.Close()
	if _, err := png.Decode(pngFile); err != nil {
		t.Errorf("latency-spectrum.png: %v", err)
	}
	code, stdout, stderr = hammer(t, "report", "--compare", a, b)
	if code != exitOK || !strings.Contains(stdout, "| `lock-only` | whole attempt |") {
		t.Errorf("compare exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := hammer(t, "report", "--compare", a); code != exitUsage || !strings.Contains(stderr, "want two results folders") {
		t.Errorf("compare with one folder: exit %d, %q", code, stderr)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
