package main

import (
	"slices"
	"strings"
	"testing"
)

// checkActionHTML checks how the action links report.html from the job
// summary: a step copies it under the results artifact's name (unique in
// a workflow run), an upload that cannot fail the job sends it unzipped,
// and the job summary, after both, links to what the upload returned.
func checkActionHTML(t *testing.T, steps []actionStep) {
	t.Helper()
	at := func(is func(actionStep) bool) int { return slices.IndexFunc(steps, is) }
	hammer := at(func(s actionStep) bool { return s.ID == "hammer" })
	name := at(func(s actionStep) bool { return s.ID == "html" })
	upload := at(func(s actionStep) bool { return s.ID == "html-upload" })
	summary := at(func(s actionStep) bool { return strings.Contains(s.Run, "GITHUB_STEP_SUMMARY") })
	if name < 0 || upload < 0 || !(hammer < name && name < upload && upload < summary) {
		t.Fatalf("steps at hammer %d, naming report.html %d, its upload %d, the summary %d: want them in that order", hammer, name, upload, summary)
	}
	if s := steps[name]; !strings.Contains(s.If, "always()") || !strings.Contains(s.Run, "report.html") ||
		s.Env["HAMMER_ARTIFACT"] != "${{ inputs.artifact-name }}" {
		t.Errorf("step %q: if %q, env %v; want always(), naming report.html after the artifact", s.Name, s.If, s.Env)
	}
	u := steps[upload]
	if v, ok := strings.CutPrefix(u.Uses, "actions/upload-artifact@v"); !ok || v < "7" || u.With["archive"] != "false" {
		t.Errorf("report.html's upload uses %q with archive %q: want upload-artifact v7 or later, archive false (one page, unzipped)", u.Uses, u.With["archive"])
	}
	if !u.ContinueOnError || !strings.Contains(u.If, "always()") {
		t.Errorf("report.html's upload: if %q, continue-on-error %v; want always() and an upload that cannot fail the job", u.If, u.ContinueOnError)
	}
	if got := steps[summary].Env["HAMMER_HTML_URL"]; got != "${{ steps.html-upload.outputs.artifact-url }}" {
		t.Errorf("the job summary links %q, want the upload's artifact-url", got)
	}
}
