package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// maxFuzzMatrix bounds the matrices FuzzParseMatrix feeds the parser: a
// matrix is a few dozen lines.
const maxFuzzMatrix = 64 << 10

// serviceVariants are the variants of examples/ticketd/target.yaml, which
// its gate.matrix names.
var serviceVariants = []string{"naive", "lock-only", "update-only", "lock-plus-update"}

// FuzzParseMatrix feeds the matrix parsers (hammer's own modes, and a
// service's variants) arbitrary text. A refusal is one line; a matrix
// they accept has cells with distinct names, and writing each cell back
// as a line and parsing that gives the same cells.
func FuzzParseMatrix(f *testing.F) {
	for _, p := range []string{"gate.matrix", "locks.matrix", "redlock.matrix", filepath.Join("..", "examples", "ticketd", "gate.matrix")} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{
		"lock-only pause safe extend no-hint nodes=3 lock=redsync # comment",
		"lock-only node-restart unsafe nodes=5\nlock-only none safe nodes=1",
		"none none unsafe\nnone none unsafe",
		"naive crash unsafe\nlock-only   partition\tsafe",
		"fenced pause safe nodes=0",
		"\n\n# only comments\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > maxFuzzMatrix {
			return
		}
		cells, err := ParseMatrix(strings.NewReader(text))
		checkMatrix(t, text, cells, err, func(s string) ([]Scenario, error) { return ParseMatrix(strings.NewReader(s)) })
		cells, err = ParseVariantMatrix(strings.NewReader(text), serviceVariants)
		checkMatrix(t, text, cells, err, func(s string) ([]Scenario, error) {
			return ParseVariantMatrix(strings.NewReader(s), serviceVariants)
		})
	})
}

// checkMatrix checks what a matrix parser made of text: a one-line
// refusal, or cells with distinct names that parse back from their lines.
func checkMatrix(t *testing.T, text string, cells []Scenario, err error, parse func(string) ([]Scenario, error)) {
	t.Helper()
	if err != nil {
		if strings.ContainsAny(err.Error(), "\r\n") {
			t.Fatalf("the refusal is not one line: %q", err)
		}
		if cells != nil {
			t.Fatalf("a refusal (%v) with cells %+v", err, cells)
		}
		return
	}
	if len(cells) == 0 {
		t.Fatalf("no cells and no error for %q", text)
	}
	names := map[string]bool{}
	lines := make([]string, len(cells))
	for i, c := range cells {
		if c.Name == "" || names[c.Name] {
			t.Fatalf("cell %d is named %q: want a name of its own", i, c.Name)
		}
		names[c.Name] = true
		if c.Expected != Safe && c.Expected != Unsafe {
			t.Fatalf("cell %s expects %q", c.Name, c.Expected)
		}
		lines[i] = matrixLine(c)
	}
	again, err := parse(strings.Join(lines, "\n"))
	if err != nil || !reflect.DeepEqual(again, cells) {
		t.Fatalf("the cells written back as\n%s\nparse as %+v, %v; want %+v", strings.Join(lines, "\n"), again, err, cells)
	}
}

// matrixLine writes a cell as a matrix line.
func matrixLine(c Scenario) string {
	fault := string(c.Fault)
	if c.Fault == NoFault {
		fault = "none"
	}
	fields := []string{string(c.Mode), fault, string(c.Expected)}
	if c.Extend {
		fields = append(fields, "extend")
	}
	if c.NoHint {
		fields = append(fields, "no-hint")
	}
	if c.Nodes != 0 {
		fields = append(fields, fmt.Sprintf("nodes=%d", c.Nodes))
	}
	if c.Lock != "" {
		fields = append(fields, "lock="+string(c.Lock))
	}
	return strings.Join(fields, " ")
}
