package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// parseFlags parses the command line into a Config. The error reads as one
// line; flag.ErrHelp means the usage was printed for -h.
func parseFlags(args []string, stderr io.Writer) (Config, error) {
	c := defaultConfig()
	fs := flag.NewFlagSet("hammer-bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&c.Rounds, "rounds", c.Rounds, "how many `times` to measure every figure; the table shows each round and the median")
	fs.StringVar(&c.Hammer, "hammer", c.Hammer, "the hammer `binary` under test")
	fs.IntVar(&c.Conns, "conns", c.Conns, "connections of the throughput figure (pgbench clients, hammer goroutines)")
	fs.IntVar(&c.TxPerConn, "tx", c.TxPerConn, "transactions per connection of the throughput figure")
	fs.DurationVar(&c.FlashTimeout, "flash-timeout", c.FlashTimeout, "hammer's --timeout for the flash sale's run")
	fs.DurationVar(&c.Soak, "soak", c.Soak, "after the rounds, run hammer's open model at 1000 requests a second for this `long`, its memory sampled each minute (0: no soak)")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, "Usage: hammer-bench [flags]   (scripts/bench.sh builds hammer and runs this)")
		fs.PrintDefaults()
		return c, flag.ErrHelp
	}
	if err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return c, c.check()
}

// check validates the configuration.
func (c Config) check() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"rounds", c.Rounds}, {"conns", c.Conns}, {"tx", c.TxPerConn}} {
		if f.v < 1 {
			return fmt.Errorf("--%s must be at least 1, got %d", f.name, f.v)
		}
	}
	if s := c.throughputSeats(); s <= 0 || s > 1<<31-1 {
		return fmt.Errorf("--conns %d × --tx %d is too many transactions for one sector", c.Conns, c.TxPerConn)
	}
	if c.Soak < 0 {
		return fmt.Errorf("--soak must not be negative, got %s", c.Soak)
	}
	if c.FlashTimeout < time.Second {
		return fmt.Errorf("--flash-timeout must be at least 1s, got %s", c.FlashTimeout)
	}
	if fi, err := os.Stat(c.Hammer); err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("--hammer %s is not an executable (build it: go build -o bin/hammer ./cmd/hammer, or run scripts/bench.sh)", c.Hammer)
	}
	return nil
}

// tools are the anchors' binaries.
type tools struct {
	pgbench, redisBenchmark string
}

// findTools finds pgbench (PATH, else the newest /usr/lib/postgresql/*/bin)
// and redis-benchmark (PATH).
func findTools() (tools, error) {
	var t tools
	var err error
	if t.redisBenchmark, err = exec.LookPath("redis-benchmark"); err != nil {
		return t, errors.New("redis-benchmark not found in PATH (apt-get install redis-tools)")
	}
	if t.pgbench, err = exec.LookPath("pgbench"); err == nil {
		return t, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return majorOf(b) - majorOf(a) })
	for _, d := range dirs {
		if p := filepath.Join(d, "pgbench"); isFile(p) {
			t.pgbench = p
			return t, nil
		}
	}
	return t, errors.New("pgbench not found in PATH or /usr/lib/postgresql/*/bin (apt-get install postgresql)")
}

// majorOf is the major version of a /usr/lib/postgresql/<major>/bin path.
func majorOf(binDir string) int {
	v, _ := strconv.Atoi(strings.Split(filepath.Base(filepath.Dir(binDir)), ".")[0])
	return v
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// withSignals returns a context that ends at the first stop signal, so the
// bench stops hammer (which cleans up), its servers and its temporary
// directory; a second signal exits at once (the servers and children die
// with the bench, by their parent-death signal). stop restores the default
// handling.
func withSignals(parent context.Context, w io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(w, "hammer-bench: %s: stopping and cleaning up; another one exits at once\n", sig)
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			os.Exit(exitInfra)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
