package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/report"
)

// TestCompareExitCodes compares saved folders, edited so that runs get
// worse, better, undeterminable or go missing, and checks the exit code,
// the conclusion and the warnings. Verdicts are recomputed from the
// records, so the edits are to the records.
func TestCompareExitCodes(t *testing.T) {
	dir := t.TempDir()
	saved := func(name, from string, edit func(dir string)) string {
		d := filepath.Join(dir, name)
		copyDir(t, filepath.Join("testdata", from), d)
		edit(d)
		reseal(t, d)
		return d
	}
	a := saved("a", "load-small", func(d string) { setCommand(t, d, "load") })
	oversold := saved("oversold", "load-small", func(d string) {
		setCommand(t, d, "load")
		// A second sale of seat 1 in lock-only, to an attempt told sold_out.
		appendLine(t, filepath.Join(d, folder.LedgerFile), `{"run":"lock-only","sector":1,"seat":1,"request_id":"p0-g0-a0",`+
			`"worker":"p0-g0","started_ns":1795937026534627000,"sold_ns":1795937026547000000}`)
	})
	unread := saved("unread", "load-small", func(d string) {
		setCommand(t, d, "load")
		// Without its sector row lock-only cannot be verified.
		keepLines(t, filepath.Join(d, folder.SectorsFile), func(l string) bool { return !strings.Contains(l, `"run":"lock-only"`) })
	})
	missing := saved("missing", "load-small", func(d string) {
		setCommand(t, d, "load")
		dropRun(t, d, "update-only")
	})
	noneOnly := saved("none-only", "none-only", func(d string) { setCommand(t, d, "run") })
	onlyUpdate := saved("only-update", "load-small", func(d string) {
		setCommand(t, d, "load")
		for _, run := range []string{"none", "lock-only", "lock-plus-update"} {
			dropRun(t, d, run)
		}
	})

	tests := []struct {
		name         string
		a, b         string
		wantCode     int
		wantStdout   []string
		wantWarnings []string // each a line of stderr after "hammer: warning: "
		wantStderr   string   // of a usage error's one line
	}{
		{name: "same folder", a: a, b: a, wantCode: exitOK,
			wantStdout: []string{"**Conclusion:** no run got worse."}},
		{name: "a safe run oversells in B", a: a, b: oversold, wantCode: exitFail,
			wantStdout: []string{"| `lock-only` | valid (as expected) | invalid (FAIL) | 3 | 4 | **worse: valid → invalid** |",
				"**Conclusion:** B is worse than A in 1 run: `lock-only` (valid → invalid)."}},
		{name: "B got better", a: oversold, b: a, wantCode: exitOK,
			wantStdout: []string{"better: invalid → valid", "**Conclusion:** no run got worse."}},
		{name: "a run cannot be determined in B", a: a, b: unread, wantCode: exitInfra,
			wantStdout: []string{"**cannot tell: valid → unknown**",
				"**Conclusion:** no run got worse; 1 run could not be determined in B: `lock-only` (valid → unknown)."}},
		{name: "B lacks a run", a: a, b: missing, wantCode: exitOK,
			wantStdout:   []string{"| `update-only` | valid (as expected) | – | 3 | – | only in A |"},
			wantWarnings: []string{"A and B ran different matrices (only the runs both hold are judged): 1 run only in A: update-only"}},
		{name: "another command and matrix", a: a, b: noneOnly, wantCode: exitFail,
			wantStdout: []string{"**Conclusion:** B is worse than A in 1 run: `none` (invalid → invalid, expected unsafe → nothing)."},
			wantWarnings: []string{
				"A comes from hammer load, B from hammer run: their runs may not be comparable",
				"A and B ran different matrices (only the runs both hold are judged): 3 runs only in A: lock-only, update-only, lock-plus-update",
				"expectations differ between A and B in 1 run (B is judged by its own): none (expected unsafe → nothing)"}},
		{name: "no such folder", a: a, b: filepath.Join(dir, "nowhere"), wantCode: exitUsage},
		// The wrong baseline, or every run renamed: nothing was compared,
		// which must not read as a pass.
		{name: "no run in common", a: onlyUpdate, b: missing, wantCode: exitUsage,
			wantStderr: "have no run in common (A: update-only; B: none, lock-only, lock-plus-update), so nothing was compared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := hammer(t, "report", "--compare", tt.a, tt.b)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tt.wantCode, stdout, stderr)
			}
			for _, s := range tt.wantStdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if code == exitUsage {
				if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, tt.wantStderr) {
					t.Errorf("stderr = %q, want one line saying %q", stderr, tt.wantStderr)
				}
				return
			}
			var warnings []string
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if l != "" {
					warnings = append(warnings, strings.TrimPrefix(l, "hammer: warning: "))
				}
			}
			if !slices.Equal(warnings, tt.wantWarnings) {
				t.Errorf("warnings = %q, want %q\nstderr:\n%s", warnings, tt.wantWarnings, stderr)
			}
		})
	}
}

// reseal records the digests of the edited record files of folder dir in
// its manifest, as if the race itself had written them: the edits stand
// for what another race would have recorded, not for tampering.
func reseal(t *testing.T, dir string) {
	t.Helper()
	f, err := folder.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Save(dir); err != nil {
		t.Fatal(err)
	}
}

// setCommand records command as the subcommand that made the folder dir.
func setCommand(t *testing.T, dir, command string) {
	t.Helper()
	editManifest(t, dir, func(m *history.Manifest) { m.Command = command })
}

// dropRun removes a run from the folder dir: from its manifest and records.
func dropRun(t *testing.T, dir, run string) {
	t.Helper()
	editManifest(t, dir, func(m *history.Manifest) {
		m.Runs = slices.DeleteFunc(m.Runs, func(r history.Run) bool { return r.Name == run })
	})
	for _, f := range []string{folder.HistoryFile, folder.LedgerFile, folder.SectorsFile, folder.FaultsFile} {
		keepLines(t, filepath.Join(dir, f), func(l string) bool { return !strings.Contains(l, `"run":"`+run+`"`) })
	}
}

func editManifest(t *testing.T, dir string, edit func(*history.Manifest)) {
	t.Helper()
	path := filepath.Join(dir, folder.ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m history.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// keepLines rewrites the file at path with only the lines keep accepts.
func keepLines(t *testing.T, path string, keep func(string) bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" && keep(l) {
			out.WriteString(l)
		}
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCompareExitCode(t *testing.T) {
	changed := []report.RunChange{{}}
	tests := []struct {
		name string
		j    report.Judgement
		want int
	}{
		{name: "no run got worse", j: report.Judgement{}, want: exitOK},
		{name: "a run got worse", j: report.Judgement{Worse: changed}, want: exitFail},
		{name: "a run cannot be told", j: report.Judgement{Undetermined: changed}, want: exitInfra},
		{name: "worse outranks cannot tell", j: report.Judgement{Worse: changed, Undetermined: changed}, want: exitFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compareExitCode(tt.j); got != tt.want {
				t.Errorf("compareExitCode() = %d, want %d", got, tt.want)
			}
		})
	}
}
