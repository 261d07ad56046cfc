package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"

	"github.com/hammer-load/hammer/internal/childproc"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/seatdb"
)

// pgbenchScript is hammer's update-only transaction (seatdb.SellAtomic)
// as a pgbench script: the conditional UPDATE … RETURNING of the sector row
// and the sale row for the seat it returned, in one transaction, with the
// same statements and parameters.
const pgbenchScript = `\set sector 1
BEGIN;
UPDATE sectors SET available = available - 1 WHERE id = :sector AND available > 0 RETURNING capacity - available AS seat \gset
INSERT INTO sales (sector_id, seat, request_id, worker, started_at) VALUES (:sector, :seat, 'pgbench-' || :seat, 'pgbench', now());
END;
`

// throughputSeats is the sector of a throughput figure: ten times the
// transactions made, so that it never sells out while measured.
func (c Config) throughputSeats() int { return 10 * c.Conns * c.TxPerConn }

// pgbench runs the update-only transaction with pgbench, Conns clients ×
// TxPerConn transactions, prepared statements (as pgx uses them), and
// returns its tps. It checks that every transaction sold a seat.
func (b *Bench) pgbench(ctx context.Context) (Value, error) {
	schema, _ := b.names("pgbench")
	seats := b.cfg.throughputSeats()
	if err := seatdb.Create(ctx, b.stack.PGURL, schema, history.Sector{ID: 1, Capacity: seats}); err != nil {
		return NA(), fmt.Errorf("pgbench: %w", err)
	}
	defer seatdb.Drop(context.WithoutCancel(ctx), b.stack.PGURL, schema)
	script := filepath.Join(b.tmp, "sell.sql")
	if err := os.WriteFile(script, []byte(pgbenchScript), 0o644); err != nil {
		return NA(), fmt.Errorf("pgbench script: %w", err)
	}
	cmd := exec.CommandContext(ctx, b.tools.pgbench, "--no-vacuum", "--protocol", "prepared",
		"--client", strconv.Itoa(b.cfg.Conns), "--jobs", strconv.Itoa(b.cfg.jobs()),
		"--transactions", strconv.Itoa(b.cfg.TxPerConn), "--file", script, b.stack.PGURL)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+schema)
	cmd.SysProcAttr = childproc.Attr(true, syscall.SIGKILL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return NA(), fmt.Errorf("pgbench: %w: %s", err, lastLine(stderr.String()))
	}
	tps, err := parsePgbenchTPS(stdout.String())
	if err != nil {
		return NA(), err
	}
	if err := checkSold(ctx, b.stack.PGURL, schema, b.cfg.Conns*b.cfg.TxPerConn); err != nil {
		return NA(), fmt.Errorf("pgbench: %w", err)
	}
	return Known(tps), nil
}

// jobs is pgbench's threads: one per core, at most one per client.
func (c Config) jobs() int { return max(1, min(c.Conns, c.Cores)) }

// pgbenchTPS matches pgbench's result line, e.g. "tps = 5123.4 (without
// initial connection time)".
var pgbenchTPS = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)`)

// parsePgbenchTPS reads the tps from pgbench's report.
func parsePgbenchTPS(out string) (float64, error) {
	m := pgbenchTPS.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench: no tps line in its report: %q", lastLine(out))
	}
	return strconv.ParseFloat(m[1], 64)
}

// checkSold checks the schema's ledger after want sales (checkLedger).
func checkSold(ctx context.Context, pgURL, schema string, want int) error {
	store, err := seatdb.Open(ctx, pgURL, schema, 1)
	if err != nil {
		return err
	}
	defer store.Close()
	return checkLedger(ctx, store, want)
}
