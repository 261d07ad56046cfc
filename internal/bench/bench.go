// Package bench measures hammer against its anchors: pgbench running the
// same transaction, a minimal Go program running the same race, redsync and
// bsm/redislock taking the lock instead of hammer's, and redis-benchmark
// serving the lock's commands. It starts its own Redis and PostgreSQL (the
// same local stack hammer starts), runs R rounds with anchor and subject
// side by side in each, and prints every figure's ratio per round and the
// median as a Markdown table with its goal.
//
// Speed is measured here, never in timed tests. Every race the bench runs
// itself checks its own outcome (exactly the seats sold, one ledger row per
// seat), so a fast wrong race cannot win; hammer's races must exit 0 with a
// valid verdict for the same reason.
package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9/logging"

	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack"
)

// Exit codes, as hammer's: 0 measured, 1 a measurement failed or a race
// was wrong, 2 bad usage, 3 the servers or tools were unavailable.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
	exitInfra = 3
)

// Config is what to measure, and with what.
type Config struct {
	// Rounds is how many times every figure is measured.
	Rounds int
	// Hammer is the hammer binary under test.
	Hammer string
	// Conns and TxPerConn size the throughput figure: Conns connections
	// (pgbench clients, hammer goroutines) making TxPerConn transactions
	// each.
	Conns, TxPerConn int
	// FlashTimeout is the --timeout of the flash sale's run.
	FlashTimeout time.Duration
	// Soak, if positive, is how long the soak runs after the rounds
	// (soak.go); 0 leaves it out.
	Soak time.Duration
	// Cores is the machine's CPU count (pgbench's threads).
	Cores int
}

// Bench is one bench run: its servers, tools and temporary directory.
type Bench struct {
	cfg   Config
	stack *stack.Stack
	tools tools
	// tmp holds hammer's results folders and the pgbench script while
	// they are used; it is removed at the end.
	tmp string
	// id makes the schema and key names of this bench run its own.
	id  string
	log io.Writer
	seq int // names made so far
}

// Main runs the bench with the command-line args and returns the exit
// code. Results go to stdout, progress to stderr. Everything it started
// (servers, hammer, pgbench) is stopped and its temporary directory removed
// on every way out, a stop signal included.
func Main(args []string, stdout, stderr io.Writer) int {
	logging.Disable() // go-redis's own dial messages; the bench reports failures itself
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hammer-bench: %v (see hammer-bench -h)\n", err)
		return exitUsage
	}
	tl, err := findTools()
	if err != nil {
		fmt.Fprintf(stderr, "hammer-bench: %v\n", err)
		return exitInfra
	}
	ctx, stop := withSignals(context.Background(), stderr)
	defer stop()
	b := &Bench{cfg: cfg, tools: tl, log: stderr}
	return b.run(ctx, stdout)
}

// run starts the servers, measures every round and prints the results.
func (b *Bench) run(ctx context.Context, stdout io.Writer) int {
	id, err := newID()
	if err != nil {
		fmt.Fprintf(b.log, "hammer-bench: %v\n", err)
		return exitInfra
	}
	b.id = id
	if b.tmp, err = os.MkdirTemp("", "hammer-bench-"); err != nil {
		fmt.Fprintf(b.log, "hammer-bench: %v\n", err)
		return exitInfra
	}
	defer os.RemoveAll(b.tmp)
	b.stack, err = stack.Start(ctx, stack.Options{Kind: stack.Local, Log: b.log})
	if err != nil {
		fmt.Fprintf(b.log, "hammer-bench: %v\n", err)
		return exitInfra
	}
	defer b.stack.Close()
	m := b.describe(ctx)
	var rounds []Round
	for i := 1; i <= b.cfg.Rounds && ctx.Err() == nil; i++ {
		rounds = append(rounds, b.runRound(ctx, i))
	}
	if ctx.Err() != nil {
		fmt.Fprintln(b.log, "hammer-bench: stopped; nothing printed")
		return exitInfra
	}
	rep := Report{Machine: m, Config: b.cfg, Rounds: rounds}
	code := exitOK
	if b.cfg.Soak > 0 {
		s, err := b.soak(ctx)
		switch {
		case ctx.Err() != nil:
			fmt.Fprintln(b.log, "hammer-bench: stopped; nothing printed")
			return exitInfra
		case err != nil:
			fmt.Fprintf(b.log, "hammer-bench: soak: %v\n", err)
			code = exitFail
		default:
			rep.Soak = &s
		}
	}
	Render(stdout, rep)
	for _, r := range rounds {
		if len(r.Errors) > 0 {
			return exitFail
		}
	}
	return code
}

// names returns a fresh hammer schema name and Redis key prefix for one
// measurement of this bench run, so that none reuses another's tables.
func (b *Bench) names(what string) (schema, prefix string) {
	b.seq++
	run := what + "-" + strconv.Itoa(b.seq)
	return seatdb.SchemaName("bench-"+b.id, run), "hammer:bench-" + b.id + ":" + run + ":"
}

// newID is a short random id.
func newID() (string, error) {
	var p [4]byte
	if _, err := rand.Read(p[:]); err != nil {
		return "", fmt.Errorf("random id: %w", err)
	}
	return hex.EncodeToString(p[:]), nil
}

// defaultConfig is the bench's defaults.
func defaultConfig() Config {
	return Config{Rounds: 3, Hammer: "bin/hammer", Conns: 16, TxPerConn: 400,
		FlashTimeout: 90 * time.Second, Cores: runtime.NumCPU()}
}
