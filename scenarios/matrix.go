package scenarios

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hammer-load/hammer/internal/bounded"
)

//go:embed gate.matrix
var gateMatrix string

//go:embed redlock.matrix
var redlockMatrix string

// Gate returns the default matrix of `hammer gate`, kept as data in
// gate.matrix beside this file.
func Gate() []Scenario { return embedded("gate.matrix", gateMatrix) }

// Redlock returns the matrix of hammer's lock over five Redis nodes under
// the Redlock timelines, kept as data in redlock.matrix beside this file
// (`hammer gate --matrix scenarios/redlock.matrix`).
func Redlock() []Scenario { return embedded("redlock.matrix", redlockMatrix) }

// embedded parses a matrix embedded at build time.
func embedded(name, text string) []Scenario {
	cells, err := ParseMatrix(strings.NewReader(text))
	if err != nil {
		// The file is embedded at build time and covered by a test.
		panic("scenarios: embedded " + name + ": " + err.Error())
	}
	return cells
}

// MaxMatrixSize is the most hammer reads of a matrix file: the largest
// matrix hammer ships takes 8 KB.
const MaxMatrixSize = 1 << 20

// OpenMatrix opens the matrix file at path for ParseMatrix or
// ParseVariantMatrix. A file larger than MaxMatrixSize, or one that is no
// regular file (a device, a FIFO, a directory), is refused without being
// read; one that grows past the limit fails the parse.
func OpenMatrix(path string) (io.ReadCloser, error) {
	return bounded.Open(path, MaxMatrixSize)
}

// ParseMatrix reads a matrix file: one cell per line, "mode fault expect
// [extend] [no-hint] [nodes=N] [lock=NAME]", blank lines and # comments ignored.
// Errors name the line.
func ParseMatrix(r io.Reader) ([]Scenario, error) {
	cells, err := parseMatrix(r, ParseMode)
	for _, c := range cells {
		if err := errors.Join(c.Mode.CheckFault(c.Fault), c.CheckNodes()); err != nil {
			return nil, fmt.Errorf("cell %s: %w", c.Name, err)
		}
	}
	return cells, err
}

// ParseVariantMatrix reads the matrix of a user's service: one cell per
// line, "variant fault expect", a variant being one of variants (it races
// as the cell's mode). Errors name the line.
func ParseVariantMatrix(r io.Reader, variants []string) ([]Scenario, error) {
	cells, err := parseMatrix(r, func(s string) (Mode, error) {
		if slices.Contains(variants, s) {
			return Mode(s), nil
		}
		return "", fmt.Errorf("unknown variant %q (want one of %s)", s, strings.Join(variants, ", "))
	})
	for _, c := range cells {
		if c.Extend || c.NoHint || c.Nodes > 0 || c.Lock != "" {
			return nil, fmt.Errorf("cell %s: extend, no-hint, nodes= and lock= work on hammer's own strategies only, not a service's", c.Name)
		}
	}
	return cells, err
}

// parseMatrix reads a matrix whose first field parseMode reads.
func parseMatrix(r io.Reader, parseMode func(string) (Mode, error)) ([]Scenario, error) {
	var cells []Scenario
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if n == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // the byte-order mark some editors save
		}
		line, _, _ := strings.Cut(text, "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		cell, err := parseCell(fields, parseMode)
		if err != nil {
			return nil, fmt.Errorf("matrix line %d: %w", n, err)
		}
		if prev, dup := seen[cell.Name]; dup {
			return nil, fmt.Errorf("matrix line %d: cell %s repeats line %d", n, cell.Name, prev)
		}
		seen[cell.Name] = n
		cells = append(cells, cell)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read matrix: %w", err)
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("matrix has no cells")
	}
	return cells, nil
}

func parseCell(fields []string, parseMode func(string) (Mode, error)) (Scenario, error) {
	if len(fields) < 3 {
		return Scenario{}, fmt.Errorf("want \"mode fault expect [extend] [no-hint] [nodes=N] [lock=NAME]\", got %d fields", len(fields))
	}
	mode, err := parseMode(fields[0])
	if err != nil {
		return Scenario{}, err
	}
	fault, err := ParseFault(fields[1])
	if err != nil {
		return Scenario{}, err
	}
	expect := Expectation(fields[2])
	if expect != Safe && expect != Unsafe {
		return Scenario{}, fmt.Errorf("expect %q: want safe or unsafe", fields[2])
	}
	cell := Scenario{Mode: mode, Fault: fault, Expected: expect}
	for _, opt := range fields[3:] {
		if err := cell.setOption(opt); err != nil {
			return Scenario{}, err
		}
		if !mode.UsesLock() {
			return Scenario{}, fmt.Errorf("%s needs a mode with a lock, not %s", opt, mode)
		}
	}
	if err := cell.Lock.CheckNodes(cell.Nodes); err != nil {
		return Scenario{}, err
	}
	if err := cell.Lock.CheckMode(mode); err != nil {
		return Scenario{}, err
	}
	return cell.Named(), nil
}

// setOption sets the option a matrix line names after its expectation.
func (s *Scenario) setOption(opt string) error {
	name, lock, isLock := strings.Cut(opt, "=") // lock: the value of lock= or nodes=
	switch {
	case opt == "extend" && !s.Extend:
		s.Extend = true
	case opt == "no-hint" && !s.NoHint:
		s.NoHint = true
	case isLock && name == "lock" && s.Lock == "" && lock != "":
		l, err := ParseLock(lock)
		if err != nil {
			return fmt.Errorf("option %q: %w", opt, err)
		}
		s.Lock = l
	case isLock && name == "nodes" && s.Nodes == 0:
		n, err := strconv.Atoi(lock)
		if err != nil || n < 1 {
			return fmt.Errorf("option %q: want nodes=N with N a count of Redis nodes", opt)
		}
		s.Nodes = n
	default:
		return fmt.Errorf("option %q: want extend, no-hint, nodes=N or lock=NAME, each at most once", opt)
	}
	return nil
}
