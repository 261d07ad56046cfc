package fault

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/scenarios"
)

// TestRegistryMatchesTable checks that every row of the fault table has a
// behaviour and every behaviour a row.
func TestRegistryMatchesTable(t *testing.T) {
	reg := registry()
	for _, f := range scenarios.Faults() {
		if _, err := New(f); err != nil {
			t.Errorf("New(%q): %v; want the behaviour of a fault of the table", f, err)
		}
	}
	for f := range reg {
		if !slices.Contains(scenarios.Faults(), f) {
			t.Errorf("registry has %q, which the fault table has no row for", f)
		}
	}
	if _, err := New("no-such-fault"); err == nil {
		t.Error("New(no-such-fault) = nil error, want one")
	}
	if f, err := New(scenarios.NoFault); err != nil || f != (Base{}) {
		t.Errorf("New(NoFault) = %v, %v; want Base, nil", f, err)
	}
}

// TestEveryFaultDocumented walks the registry and checks that each fault
// has a row in the fault table of docs/faults.md and is listed in the comment at
// the top of scenarios/gate.matrix.
func TestEveryFaultDocumented(t *testing.T) {
	readme := read(t, "../../docs/faults.md")
	matrix := read(t, "../../scenarios/gate.matrix")
	var header []string
	for _, line := range strings.Split(matrix, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			break // the first cell ends the header comment
		}
		header = append(header, line)
	}
	faultList := regexp.MustCompile(`[a-z][a-z-]*`).FindAllString(faultsOfHeader(header), -1)
	for f := range registry() {
		if !strings.Contains(readme, "\n| `"+string(f)+"` |") {
			t.Errorf("docs/faults.md has no row \"| `%s` | …\" in its fault table", f)
		}
		if !slices.Contains(faultList, string(f)) {
			t.Errorf("the comment of scenarios/gate.matrix does not list fault %s under \"fault:\"", f)
		}
	}
}

// faultsOfHeader returns the "fault:" entry of the matrix's header comment
// and the lines that continue it (those starting with "|").
func faultsOfHeader(header []string) string {
	var out []string
	in := false
	for _, line := range header {
		body := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		switch {
		case strings.HasPrefix(body, "fault:"):
			in = true
			out = append(out, strings.TrimPrefix(body, "fault:"))
		case in && strings.HasPrefix(body, "|"):
			out = append(out, body)
		default:
			in = false
		}
	}
	return strings.Join(out, " ")
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
