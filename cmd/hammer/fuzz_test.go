package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/folder/foldertest"
	"github.com/hammer-load/hammer/verify"
)

// maxFuzzFile bounds each file FuzzVerify writes: the properties do not
// depend on size, and small folders keep every execution fast.
const maxFuzzFile = 64 << 10

// FuzzVerify runs `hammer verify` on a results folder written from
// arbitrary bytes (with seal, the manifest records the record files'
// digests, so the folder is consistent). It exits with one of hammer's
// codes and prints no control character but the line break; a refusal is one line of the usage shape and nothing on stdout;
// and it exits 0 only for a folder of at least one run, each of which
// holds its expectation with a determined verdict on evidence that adds
// up for a valid one.
func FuzzVerify(f *testing.F) {
	for _, dir := range []string{"none-only", "load-small"} {
		b, err := foldertest.Read("testdata/" + dir)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[0], b[1], b[2], b[3], b[4], false)
		f.Add(b[0], b[1], b[2], b[3], b[4], true)
	}
	f.Add([]byte(`{"schema":"hammer.manifest/v1","runs":[]}`), []byte{}, []byte{}, []byte{}, []byte{}, true)
	f.Fuzz(func(t *testing.T, manifest, hist, ledger, sectors, faults []byte, seal bool) {
		files := [][]byte{manifest, hist, ledger, sectors, faults}
		for _, b := range files {
			if len(b) > maxFuzzFile {
				return
			}
		}
		dir := t.TempDir()
		if err := foldertest.Write(dir, files, seal); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := verifyCmd([]string{dir}, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		if strings.ContainsFunc(out.String()+errb.String(), func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) {
			t.Fatalf("a control character is printed: stdout %q, stderr %q", out.String(), errb.String())
		}
		switch code {
		case exitOK:
			checkVerified(t, dir)
		case exitFail, exitInfra:
		case exitUsage:
			line := errb.String()
			if !strings.HasPrefix(line, "hammer verify: ") || !strings.HasSuffix(line, " (see hammer verify -h)\n") ||
				strings.Count(line, "\n") != 1 || strings.Contains(line, "\r") || out.Len() > 0 {
				t.Fatalf("a refusal of another shape: stderr %q, stdout %q", line, out.String())
			}
		default:
			t.Fatalf("exit %d: not one of hammer's codes", code)
		}
	})
}

// checkVerified checks a folder `hammer verify` exited 0 on: it has runs,
// each holds its expectation with a determined verdict, and a valid one
// stands on records that add up.
func checkVerified(t *testing.T, dir string) {
	t.Helper()
	f, err := folder.Load(dir)
	if err != nil {
		t.Fatalf("exit 0 on a folder that does not load: %v", err)
	}
	if len(f.Runs()) == 0 {
		t.Fatal("exit 0 on a folder of no runs: nothing was verified")
	}
	for _, rv := range verify.Runs(f.Runs()) {
		ok, why := verify.Expect(rv.Verdict, rv.Run.Expected)
		switch {
		case rv.Verdict.Status == verify.Unknown || !ok:
			t.Fatalf("exit 0, yet run %q is %s (expectation held: %v, %s)", rv.Run.Name, rv.Verdict.Status, ok, why)
		case rv.Verdict.Status == verify.Valid && len(f.Integrity) > 0:
			t.Fatalf("exit 0, run %q valid on a folder that does not add up: %+v", rv.Run.Name, f.Integrity)
		}
	}
}
