package bench

import (
	"fmt"
	"io"
	"strings"
)

// Row is one line of a table: a figure per round, its median and its goal.
type Row struct {
	Figure, Anchor string
	Rounds         []Value
	// Text, when set, prints round i instead of Rounds[i] (an exit code
	// with its verdict).
	Text []string
	// Format prints a value; Median is printed with it too.
	Format func(float64) string
	Goal   Goal
}

// Cells are the row's printed rounds, median and goal verdict.
func (r Row) Cells() (rounds []string, median, met string) {
	med := Median(r.Rounds)
	for i, v := range r.Rounds {
		switch {
		case i < len(r.Text) && r.Text[i] != "":
			rounds = append(rounds, r.Text[i])
		default:
			rounds = append(rounds, r.show(v))
		}
	}
	median = r.show(med)
	if r.Goal.Op == Every {
		median = "-"
	}
	return rounds, median, r.Goal.Met(r.Rounds, med)
}

func (r Row) show(v Value) string {
	if v.Missing() {
		return "n/a"
	}
	return r.Format(v.V)
}

// Formats of the tables' numbers.
func ratio(v float64) string { return fmt.Sprintf("%.2f ×", v) }
func millis(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}
func perSec(v float64) string { return fmt.Sprintf("%.0f/s", v) }
func mib(v float64) string    { return fmt.Sprintf("%.0f MiB", v/(1<<20)) }
func count(v float64) string  { return fmt.Sprintf("%.0f", v) }

// Report is what Render prints.
type Report struct {
	Machine Machine
	Config  Config
	Rounds  []Round
	// Soak is the soak's measurements; nil when it did not run.
	Soak *Soak
}

// Render prints the machine, the figures with their goals, the raw
// measurements they come from, and what went wrong, as Markdown.
func Render(w io.Writer, r Report) {
	m := r.Machine
	fmt.Fprintf(w, "## Machine\n\n- cores: %d, CPU: %s\n- kernel: %s\n- Go: %s\n- Redis: %s\n- PostgreSQL: %s\n- pgbench: %s; redis-benchmark: %s\n- hammer: %s\n\n",
		m.Cores, m.CPU, m.Kernel, m.Go, m.Redis, m.PostgreSQL, m.Pgbench, m.RedisBenchmark, m.Hammer)
	c := r.Config
	fmt.Fprintf(w, "Rounds: %d (odd rounds run the steps in order, even rounds in reverse). Throughput: %d connections × %d transactions. Races: %d × %d contenders for %d seats, --pool %d (%d PostgreSQL connections). Flash sale: %d × %d lock-plus-update, --timeout %s.\n\n",
		c.Rounds, c.Conns, c.TxPerConn, raceProcs, raceGoroutines, raceSeats, racePool, raceConns, flashProcs, flashGoroutines, c.FlashTimeout)
	fmt.Fprintf(w, "## Figures\n\n")
	writeTable(w, []string{"figure", "anchor"}, []string{"median", "goal", "met"}, len(r.Rounds), FigureRows(r.Rounds))
	fmt.Fprintf(w, "\n## Measurements\n\n")
	writeTable(w, []string{"measurement", "how"}, []string{"median"}, len(r.Rounds), MeasurementRows(r.Rounds))
	writeNotes(w, r.Rounds)
	if r.Soak != nil {
		renderSoak(w, *r.Soak)
	}
}

// writeTable prints rows with one column per round between head and tail.
func writeTable(w io.Writer, head, tail []string, rounds int, rows []Row) {
	cols := append([]string{}, head...)
	for i := range rounds {
		cols = append(cols, fmt.Sprintf("round %d", i+1))
	}
	cols = append(cols, tail...)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, row := range rows {
		rs, med, met := row.Cells()
		cells := append([]string{row.Figure, row.Anchor}, rs...)
		cells = append(cells, med)
		if len(tail) == 3 {
			cells = append(cells, row.Goal.Text, met)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// writeNotes prints the notes and errors of the rounds, each once with the
// rounds it came from.
func writeNotes(w io.Writer, rounds []Round) {
	var order []string
	seen := map[string][]string{}
	for i, r := range rounds {
		for _, n := range append(append([]string{}, r.Notes...), r.Errors...) {
			if _, ok := seen[n]; !ok {
				order = append(order, n)
			}
			seen[n] = append(seen[n], fmt.Sprint(i+1))
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Notes\n\n")
	for _, n := range order {
		fmt.Fprintf(w, "- %s (round %s)\n", n, strings.Join(seen[n], ", "))
	}
}
