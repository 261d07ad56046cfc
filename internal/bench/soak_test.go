package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRenderSoak: the soak's section has a row per sample, a bar as long
// as its share of the largest, and the folder and verification line.
func TestRenderSoak(t *testing.T) {
	var b bytes.Buffer
	renderSoak(&b, Soak{Duration: 2 * time.Minute, Exit: 0, Verdict: "valid",
		Samples: []soakSample{
			{at: time.Minute, coordinator: 100 << 20, workers: 300 << 20, procs: 4},
			{at: 2 * time.Minute, coordinator: 100 << 20, workers: 100 << 20, procs: 4},
		},
		FolderBytes: 2_450_000, Attempts: 10_000, Verify: 1500 * time.Millisecond, VerifyExit: 0})
	got := b.String()
	for _, want := range []string{
		"--rate 1000 --duration 2m0s`: exit 0, verdict valid",
		"| 1m0s | 100 MiB | 300 MiB (4) | 400 MiB | " + strings.Repeat("█", 40) + " |",
		"| 2m0s | 100 MiB | 100 MiB (4) | 200 MiB | " + strings.Repeat("█", 20) + " |",
		"Results folder: 2.5 MB for 10000 attempts (245 bytes each); `hammer verify` of it: 1.5s, exit 0.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("soak section lacks %q:\n%s", want, got)
		}
	}
}

// TestSampleTree: the coordinator is the root; the processes below it
// count as workers.
func TestSampleTree(t *testing.T) {
	child := exec.Command("sleep", "5")
	if err := child.Start(); err != nil {
		t.Skip("no sleep binary:", err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	s := sampleTree(os.Getpid(), time.Second)
	if s.coordinator <= 0 || s.procs < 1 || s.workers <= 0 {
		t.Errorf("sample %+v: want this process's memory and at least its child's", s)
	}
}

// TestFolderSize sums the files and counts the history's records.
func TestFolderSize(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "hgrm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hgrm", "x"), []byte("1234"), 0o644); err != nil {
		t.Fatal(err)
	}
	if size, n := folderSize(dir); size != 10 || n != 2 {
		t.Errorf("folderSize = %d bytes, %d records; want 10, 2", size, n)
	}
}
