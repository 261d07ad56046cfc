package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateJUnit runs a small matrix through `hammer gate` and reads back
// junit.xml: one test case per cell, and an error, not a failure, for the
// cell whose negative control broke nothing ("detection lost"): no
// strategy was caught, so the gate's exit is 3, not 1.
func TestGateJUnit(t *testing.T) {
	dir := t.TempDir()
	matrix := filepath.Join(dir, "small.matrix")
	cells := "# a passing cell, a broken lock that must be seen, and a wrong expectation\n" +
		"update-only none safe\n" +
		"lock-only pause unsafe\n" +
		"lock-plus-update pause unsafe\n" +
		"lock-only failover unsafe\n"
	if err := os.WriteFile(matrix, []byte(cells), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := append([]string{"gate", "--matrix", matrix, "--quiet", "--out", out}, stackArgs(t)...)
	code, stdout, stderr := hammer(t, args...)
	if code != exitInfra {
		t.Fatalf("exit %d, want %d (a cell expected unsafe stayed safe)\n%s\n%s", code, exitInfra, stdout, stderr)
	}
	if !strings.Contains(stdout, "detection lost") {
		t.Errorf("stdout does not say detection lost:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []struct {
			Skipped int `xml:"skipped,attr"`
			Cases   []struct {
				Name    string `xml:"name,attr"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v", err)
	}
	// The failover cell cannot run on an external stack: reported skipped.
	if doc.Tests != 4 || doc.Failures != 0 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 4 || doc.Suites[0].Skipped != 1 {
		t.Fatalf("junit: %d tests, %d failures, %d suites; want 4 cases with no failure and 1 skipped", doc.Tests, doc.Failures, len(doc.Suites))
	}
	if c := doc.Suites[0].Cases[3]; c.Name != "lock-only/failover" || c.Skipped == nil || !strings.Contains(c.Skipped.Message, "--stack local") {
		t.Errorf("last case %+v, want lock-only/failover skipped for want of a managed stack", c)
	}
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			t.Errorf("case %s failed: %s", c.Name, c.Failure.Message)
		}
		// lock-only/pause may be an error too, when its pause found no one
		// to take the lock (the fault's timeline did not happen).
		if c.Name == "lock-plus-update/pause" && (c.Error == nil || !strings.Contains(c.Error.Message, "detection lost")) {
			t.Errorf("case %s: error %+v, want one that says detection lost", c.Name, c.Error)
		}
	}
}

func TestGateBadMatrix(t *testing.T) {
	matrix := filepath.Join(t.TempDir(), "bad.matrix")
	if err := os.WriteFile(matrix, []byte("lock-only meteor safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := hammer(t, "gate", "--matrix", matrix)
	if code != exitUsage || !strings.Contains(stderr, "matrix line 1: unknown fault") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
