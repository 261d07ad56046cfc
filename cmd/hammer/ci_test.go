package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCIWorkflowGate runs the gate step of the documented GitHub Actions
// workflow (docs/ci/github-actions.yml) as the runner would, twice in one
// workspace: a run that passes, then one whose cell lost its detection. The
// step must end with hammer's own exit code (0, then 1; make would say 2)
// and must work again where the last run left its folder.
func TestCIWorkflowGate(t *testing.T) {
	step := workflowStep(t, filepath.Join("..", "..", "docs", "ci", "github-actions.yml"), "Gate")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	// bin/hammer stands in for the binary the workflow builds: this test
	// binary running hammer, on the shared stack, with a small matrix.
	wrapper := "#!/bin/sh\nexec env " + envTestMain + "=1 " + exe + ` "$@" --quiet --matrix "$MATRIX" ` + strings.Join(stackArgs(t), " ") + "\n"
	if err := os.WriteFile(filepath.Join(work, "bin", "hammer"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		cells    string
		wantCode int
	}{
		{"update-only none safe\n", exitOK},
		{"lock-plus-update pause unsafe\n", exitFail},
	} {
		matrix := filepath.Join(t.TempDir(), "cells.matrix")
		if err := os.WriteFile(matrix, []byte(run.cells), 0o644); err != nil {
			t.Fatal(err)
		}
		// GitHub runs a step's script with bash -e.
		cmd := exec.Command("bash", "-e", "-c", step)
		cmd.Dir, cmd.Env = work, append(os.Environ(), "MATRIX="+matrix)
		out, err := cmd.CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != run.wantCode {
			t.Errorf("matrix %q: the step exited %d, want hammer's %d\n%s", run.cells, code, run.wantCode, out)
		}
		if _, err := os.Stat(filepath.Join(work, "results", "gate", "junit.xml")); err != nil {
			t.Errorf("matrix %q: %v", run.cells, err)
		}
	}
}

// workflowStep returns the script of the named step of a workflow file.
func workflowStep(t *testing.T, path, name string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.Name == name {
				return s.Run
			}
		}
	}
	t.Fatalf("%s has no step %q", path, name)
	return ""
}
