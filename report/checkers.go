package report

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/linearize"
	"github.com/hammer-load/hammer/verify"
)

// writeHistories writes porcupine's visualization of each run it checked
// into dir (folder.PorcupineFile) and returns the pages written, by run.
func writeHistories(dir string, s Summary) (map[string]string, error) {
	pages := map[string]string{}
	for _, r := range s.Runs {
		if r.linearization == nil {
			continue
		}
		rel := folder.PorcupineFile(r.Name)
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := writeHistory(path, r.linearization); err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		pages[r.Name] = rel
	}
	return pages, nil
}

// writeHistory writes lin's visualization to the file at path, straight
// from porcupine's page (see linearize.Result.Visualize).
func writeHistory(path string, lin *linearize.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	err = lin.Visualize(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeCheckers writes report.md's section on the second checker: what
// hammer's checks and porcupine each said of every run, whether they agree
// and a link to porcupine's drawing of the history. Nothing for runs
// checked once.
func writeCheckers(b *strings.Builder, s Summary, pages map[string]string) {
	var rows strings.Builder
	for _, r := range s.Runs {
		c := r.Checkers
		if c == nil {
			continue
		}
		page := "–"
		if p, ok := pages[r.Name]; ok {
			page = fmt.Sprintf("[history](%s)", p)
		} else if c.PorcupineOperations > linearize.MaxDrawn {
			page = fmt.Sprintf("not drawn: %d operations, over %d", c.PorcupineOperations, linearize.MaxDrawn)
		}
		agreement := string(c.Agreement)
		if c.Agreement == verify.Disagree {
			agreement = "**DISAGREE**"
		}
		fmt.Fprintf(&rows, "| `%s` | %s | %s | %s | %s | %s |\n", r.Name, c.Hammer, c.Porcupine, agreement,
			fmtMs(c.PorcupineMs), page)
	}
	if rows.Len() == 0 {
		return
	}
	b.WriteString("## Checked twice\n\n")
	b.WriteString("Every run is checked by hammer's own checks and, independently, by porcupine: the history is checked for " +
		"linearizability against a model of the sector (a sale takes a free seat or answers sold out; an attempt without " +
		"a known outcome may or may not have taken the seat the ledger holds for it; the ledger read back must hold exactly " +
		"the seats sold). The two are compared on what both judge, whether a seat was sold wrongly; a disagreement makes " +
		"the run unknown. Each history link opens porcupine's interactive drawing of it (at the first illegal point when " +
		"there is one).\n\n")
	b.WriteString("| run | hammer | porcupine | agreement | check time | drawing |\n|---|---|---|---|---:|---|\n")
	b.WriteString(rows.String())
	for _, r := range s.Runs {
		if c := r.Checkers; c != nil && c.Agreement != verify.Agree && c.Why != "" {
			fmt.Fprintf(b, "\n`%s`: %s\n", r.Name, c.Why)
		}
	}
	b.WriteString("\n")
}
