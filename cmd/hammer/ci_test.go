package main

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// action is the part of a GitHub Action's metadata (action.yml) the tests
// read. Decoding is strict: a key GitHub does not know there (a typo such as
// continue-on-eror) fails the test.
type action struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

// actionStep is one step of a composite action, with every key GitHub
// allows there.
type actionStep struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
	ContinueOnError  bool              `yaml:"continue-on-error"`
}

// actionFile is the action at the root of the repository.
var actionFile = filepath.Join("..", "..", "action.yml")

// expression matches a ${{ … }} expression and captures its inside.
var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// loadAction decodes action.yml strictly.
func loadAction(t *testing.T) (action, string) {
	t.Helper()
	b, err := os.ReadFile(actionFile)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var a action
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("%s: %v", actionFile, err)
	}
	return a, string(b)
}

// TestActionInputs: every input an expression names is declared, every
// declared input is used, every step output read is written by its step
// (or is an output of the action the step uses), and no run script has an
// expression pasted into it (an input holding a quote would run as shell
// code): inputs reach scripts through env.
func TestActionInputs(t *testing.T) {
	a, text := loadAction(t)
	used := map[string]bool{}
	for _, m := range expression.FindAllStringSubmatch(text, -1) {
		for _, in := range regexp.MustCompile(`\binputs\.([A-Za-z0-9_-]+)`).FindAllStringSubmatch(m[1], -1) {
			used[in[1]] = true
			if _, ok := a.Inputs[in[1]]; !ok {
				t.Errorf("%s uses inputs.%s, which is not declared", m[0], in[1])
			}
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			t.Errorf("input %s is declared but never used", name)
		}
	}
	scripts := map[string]string{}
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		scripts[s.ID] = s.Run
		if s.Shell == "" {
			t.Errorf("step %q: a composite action's run step needs a shell", s.Name)
		}
		if m := expression.FindString(s.Run); m != "" {
			t.Errorf("step %q pastes %s into its script; pass it through env", s.Name, m)
		}
	}
	// The outputs of the actions a step uses that the action reads.
	known := map[string][]string{"actions/upload-artifact": {"artifact-id", "artifact-url", "artifact-digest"}}
	uses := map[string]string{}
	for _, s := range a.Runs.Steps {
		if name, _, ok := strings.Cut(s.Uses, "@"); ok && s.ID != "" {
			uses[s.ID] = name
		}
	}
	for _, m := range regexp.MustCompile(`\bsteps\.([\w-]+)\.outputs\.([\w-]+)`).FindAllStringSubmatch(text, -1) {
		if action, ok := uses[m[1]]; ok {
			if !slices.Contains(known[action], m[2]) {
				t.Errorf("%s: %s has no output %s", m[0], action, m[2])
			}
			continue
		}
		script, ok := scripts[m[1]]
		if !ok {
			t.Errorf("%s: no run step has the id %s", m[0], m[1])
		} else if !strings.Contains(script, m[2]+"=") {
			t.Errorf("%s: step %s never writes %s to $GITHUB_OUTPUT", m[0], m[1], m[2])
		}
	}
}

// TestActionSteps checks the promises the action makes: hammer's code is an
// output and the last step's exit code; the job summary, junit.xml and the
// results artifact are there even when hammer failed (if: always()).
func TestActionSteps(t *testing.T) {
	a, _ := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	if got := a.Outputs["exit-code"].Value; got != "${{ steps.hammer.outputs.exit-code }}" {
		t.Errorf("output exit-code = %q, want hammer's step output", got)
	}
	steps := a.Runs.Steps
	last := steps[len(steps)-1]
	if !strings.Contains(last.Run, `exit "$HAMMER_EXIT"`) || last.Env["HAMMER_EXIT"] != "${{ steps.hammer.outputs.exit-code }}" {
		t.Errorf("the last step %q does not exit with hammer's code:\n%s", last.Name, last.Run)
	}
	always := map[string]func(actionStep) bool{
		"the job summary":     func(s actionStep) bool { return strings.Contains(s.Run, "GITHUB_STEP_SUMMARY") },
		"junit.xml":           func(s actionStep) bool { return strings.HasPrefix(s.Uses, "mikepenz/action-junit-report@") },
		"the results upload":  func(s actionStep) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") },
		"hammer's exit code":  func(s actionStep) bool { return s.Name == last.Name },
		"the report it reads": func(s actionStep) bool { return strings.Contains(s.Run, "report.md") },
	}
	for what, is := range always {
		i := slices.IndexFunc(steps, is)
		switch {
		case i < 0:
			t.Errorf("no step for %s", what)
		case !strings.Contains(steps[i].If, "always()"):
			t.Errorf("step %q (%s) runs only while all goes well: if = %q, want always()", steps[i].Name, what, steps[i].If)
		case i < slices.IndexFunc(steps, func(s actionStep) bool { return s.ID == "hammer" }):
			t.Errorf("step %q (%s) runs before hammer", steps[i].Name, what)
		}
	}
	uploads := map[string]int{}
	for _, s := range steps {
		if strings.HasPrefix(s.Uses, "mikepenz/action-junit-report@") && s.With["report_paths"] != "${{ inputs.results }}/junit.xml" {
			t.Errorf("junit step reads %q, not the results folder's junit.xml", s.With["report_paths"])
		}
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			uploads[s.With["path"]]++
		}
	}
	if want := map[string]int{"${{ inputs.results }}": 1, "${{ steps.html.outputs.path }}": 1}; !maps.Equal(uploads, want) {
		t.Errorf("upload steps upload %v, want the results folder and report.html once each", uploads)
	}
	checkActionHTML(t, steps)
}

// TestActionRunsHammer runs the action's scripts as the runner would (bash
// -eo pipefail, inputs through env), twice in one workspace: a gate that
// passes, then one whose cell lost its detection. hammer's code must come
// out as the step output (0, then 3) while the step itself succeeds, the
// summary must get report.md, and the last step must exit with that code.
func TestActionRunsHammer(t *testing.T) {
	a, _ := loadAction(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	work, bin := t.TempDir(), t.TempDir()
	// hammer on PATH stands in for the binary the action builds: this test
	// binary running hammer, on the shared stack, quietly.
	wrapper := "#!/bin/sh\nexec env " + envTestMain + "=1 " + exe + ` "$@" --quiet ` + strings.Join(stackArgs(t), " ") + "\n"
	if err := os.WriteFile(filepath.Join(bin, "hammer"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		cells    string
		wantCode string
	}{
		{"update-only none safe\n", "0"},
		{"lock-plus-update pause unsafe\n", "3"},
	} {
		matrix := filepath.Join(t.TempDir(), "cells.matrix")
		if err := os.WriteFile(matrix, []byte(run.cells), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := map[string]string{
			"inputs.command": "gate", "inputs.args": "--procs 2", "inputs.matrix": matrix,
			"inputs.results": "results/ci", "inputs.stack": "",
		}
		summary := filepath.Join(t.TempDir(), "summary.md")
		r := actionRunner{t: t, work: work, path: bin + ":" + os.Getenv("PATH"), ctx: ctx, summary: summary}
		out := r.step(a, "Run hammer", 0)
		if got := out["exit-code"]; got != run.wantCode {
			t.Errorf("matrix %q: exit-code output %q, want hammer's %s", run.cells, got, run.wantCode)
		}
		ctx["steps.hammer.outputs.exit-code"] = out["exit-code"]
		ctx["inputs.artifact-name"] = "hammer-ci"
		html := r.step(a, "Name report.html after the artifact", 0)["path"]
		if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), `id="verdict"`) {
			t.Errorf("matrix %q: the copy of report.html %q: %v", run.cells, html, err)
		} else if filepath.Base(html) != "hammer-ci.html" {
			t.Errorf("report.html copied as %s, want it named after the artifact", html)
		}
		ctx["steps.html-upload.outputs.artifact-url"] = "https://github.com/o/r/actions/runs/1/artifacts/2"
		r.step(a, "Job summary", 0)
		if b, err := os.ReadFile(summary); err != nil || !strings.Contains(string(b), "| ") {
			t.Errorf("matrix %q: the job summary lacks report.md's table (%v):\n%s", run.cells, err, b)
		} else if !strings.Contains(string(b), "[report.html](https://github.com/o/r/actions/runs/1/artifacts/2)") {
			t.Errorf("matrix %q: the job summary does not link report.html:\n%s", run.cells, b)
		}
		code, err := strconv.Atoi(run.wantCode)
		if err != nil {
			t.Fatal(err)
		}
		r.step(a, "End with hammer's exit code", code)
		if _, err := os.Stat(filepath.Join(work, "results", "ci", "junit.xml")); err != nil {
			t.Errorf("matrix %q: %v", run.cells, err)
		}
	}
}

// actionRunner runs steps of an action the way a runner does, with the
// values of the expressions they use in ctx.
type actionRunner struct {
	t       *testing.T
	work    string            // the workspace, the steps' working directory
	path    string            // PATH
	ctx     map[string]string // expression -> value
	summary string            // $GITHUB_STEP_SUMMARY
	env     []string          // more of the runner's variables
}

// step runs the named step, checks it exits with wantCode and returns what
// it wrote to $GITHUB_OUTPUT.
func (r actionRunner) step(a action, name string, wantCode int) map[string]string {
	r.t.Helper()
	i := slices.IndexFunc(a.Runs.Steps, func(s actionStep) bool { return s.Name == name })
	if i < 0 {
		r.t.Fatalf("action.yml has no step %q", name)
	}
	s := a.Runs.Steps[i]
	output := filepath.Join(r.t.TempDir(), "output")
	env := append(os.Environ(), "PATH="+r.path, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+r.summary)
	env = append(env, r.env...)
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v))
	}
	// GitHub runs a bash step as bash --noprofile --norc -eo pipefail.
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir, cmd.Env = r.work, env
	out, err := cmd.CombinedOutput()
	if code := stepExitCode(r.t, err); code != wantCode {
		r.t.Fatalf("step %q exited %d, want %d\n%s", name, code, wantCode, out)
	}
	outputs := map[string]string{}
	b, _ := os.ReadFile(output)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			outputs[k] = v
		}
	}
	return outputs
}

// eval replaces each expression in v by its value; an expression the test
// does not know fails it.
func (r actionRunner) eval(v string) string {
	return expression.ReplaceAllStringFunc(v, func(m string) string {
		key := expression.FindStringSubmatch(m)[1]
		val, ok := r.ctx[key]
		if !ok {
			r.t.Fatalf("no value for %s", m)
		}
		return val
	})
}

// TestWorkflowUsesAction: the documented workflow runs this repository's
// action (named after the module path) with inputs the action declares,
// and grants what publishing junit.xml as a check needs.
func TestWorkflowUsesAction(t *testing.T) {
	a, _ := loadAction(t)
	path := filepath.Join("..", "..", "docs", "ci", "github-actions.yml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []actionStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	repo := strings.TrimPrefix(modulePath(t), "github.com/") + "@"
	found := false
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if !strings.HasPrefix(s.Uses, repo) {
				continue
			}
			found = true
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("%s passes %s, which action.yml does not declare", path, k)
				}
			}
			if s.With["junit-check"] != "false" && wf.Permissions["checks"] != "write" {
				t.Errorf("%s publishes junit.xml as a check without permissions: checks: write", path)
			}
		}
	}
	if !found {
		t.Errorf("%s has no step that uses %s…", path, repo)
	}
}

// modulePath is the module path go.mod declares.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod declares no module")
	}
	return string(m[1])
}

// stepExitCode is the exit code of a finished command, err its Run's error.
func stepExitCode(t *testing.T, err error) int {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatal(err)
	return -1
}
