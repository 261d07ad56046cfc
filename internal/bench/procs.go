package bench

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/seatdb"
)

// The minimal race in several processes: the bench's own binary started
// once per process of hammer's race (RaceProcessArg), each with its share
// of the goroutines and its own pool, all behind one go instant. Next to
// hammer's race of the same shape it shows what the shape itself costs.

// RaceProcessArg, as the first argument, makes hammer-bench one process of
// the minimal race in several processes (RaceProcess).
const RaceProcessArg = "race-process"

// procGoAhead is how far ahead of the moment every process is ready the go
// instant is set: time for each to start its goroutines.
const procGoAhead = 100 * time.Millisecond

// procConfig is what a race process reads first on its stdin.
type procConfig struct {
	PGURL      string `json:"pg_url"`
	Schema     string `json:"schema"`
	Name       string `json:"name"`
	Goroutines int    `json:"goroutines"`
	Conns      int    `json:"conns"`
}

// procReport is a line a race process writes: ready (or why it could not
// race), then its outcome.
type procReport struct {
	Ready   bool   `json:"ready,omitempty"`
	Fatal   string `json:"fatal,omitempty"`       // why it could not race
	LastEnd int64  `json:"last_end_ns,omitempty"` // its last answer, Unix ns
	// FirstStart and LastStart are its earliest and latest contender's
	// start, Unix ns.
	FirstStart int64  `json:"first_start_ns,omitempty"`
	LastStart  int64  `json:"last_start_ns,omitempty"`
	Sold       int    `json:"sold,omitempty"`
	SoldOut    int    `json:"sold_out,omitempty"`
	Errs       int    `json:"errs,omitempty"`
	Err        string `json:"err,omitempty"` // its first failed sale
}

// RaceProcess is the body of a race process: it reads a procConfig from
// in, opens and warms its pool, reports ready on out, reads the go instant
// (Unix ns), races its goroutines at that instant with hammer's
// transaction and reports its outcome. It returns the exit code.
func RaceProcess(in io.Reader, out io.Writer) int {
	ctx := context.Background()
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	fail := func(err error) int {
		_ = enc.Encode(procReport{Fatal: err.Error()})
		return exitInfra
	}
	var cfg procConfig
	if err := dec.Decode(&cfg); err != nil {
		return fail(fmt.Errorf("read config: %w", err))
	}
	store, err := seatdb.Open(ctx, cfg.PGURL, cfg.Schema, cfg.Conns)
	if err != nil {
		return fail(err)
	}
	defer store.Close()
	if err := store.Warm(ctx); err != nil {
		return fail(err)
	}
	if err := enc.Encode(procReport{Ready: true}); err != nil {
		return exitInfra
	}
	var at int64
	if err := dec.Decode(&at); err != nil {
		return exitInfra // the bench went away
	}
	r := inProcess{name: cfg.Name, goroutines: cfg.Goroutines}
	c := contender{store: store, warm: func(context.Context) error { return nil }}
	run := contend(ctx, r, c, time.Unix(0, at))
	o := run.out
	rep := procReport{LastEnd: run.last.UnixNano(), FirstStart: run.first.UnixNano(), LastStart: run.latest.UnixNano(),
		Sold: o.sold, SoldOut: o.soldOut, Errs: o.saleErrs}
	if o.firstSaleErr != nil {
		rep.Err = o.firstSaleErr.Error()
	}
	if err := enc.Encode(rep); err != nil {
		return exitInfra
	}
	return exitOK
}

// raceProcess is one started race process.
type raceProcess struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *json.Decoder
	stderr strings.Builder
}

// next reads the process's next report; a failure names its stderr.
func (p *raceProcess) next() (procReport, error) {
	var rep procReport
	if err := p.out.Decode(&rep); err != nil {
		return rep, fmt.Errorf("race process: %w (%s)", err, strings.TrimSpace(p.stderr.String()))
	}
	if rep.Fatal != "" {
		return rep, errors.New("race process: " + rep.Fatal)
	}
	return rep, nil
}

// multiRace is the minimal race split over procs processes of this binary,
// each with r.goroutines/procs goroutines and r.conns/procs connections:
// the wall runs from the go instant to the last answer of any of them.
func (b *Bench) multiRace(ctx context.Context, r inProcess, procs int) (raceResult, error) {
	res := raceResult{wall: NA(), skew: NA()}
	schema, _ := b.names(r.name)
	if err := seatdb.Create(ctx, b.stack.PGURL, schema, history.Sector{ID: 1, Capacity: r.seats}); err != nil {
		return res, fmt.Errorf("%s: %w", r.name, err)
	}
	defer seatdb.Drop(context.WithoutCancel(ctx), b.stack.PGURL, schema)
	exe, err := os.Executable()
	if err != nil {
		return res, fmt.Errorf("%s: %w", r.name, err)
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	var ps []*raceProcess
	defer func() {
		cancel() // kills any process still running: their reports are read or not wanted
		for _, p := range ps {
			_ = p.cmd.Wait()
		}
	}()
	for i := range procs {
		p := &raceProcess{cmd: exec.CommandContext(pctx, exe, RaceProcessArg)}
		p.cmd.Stderr = &p.stderr
		if p.in, err = p.cmd.StdinPipe(); err != nil {
			return res, err
		}
		stdout, err := p.cmd.StdoutPipe()
		if err != nil {
			return res, err
		}
		p.out = json.NewDecoder(bufio.NewReader(stdout))
		if err := p.cmd.Start(); err != nil {
			return res, fmt.Errorf("%s: %w", r.name, err)
		}
		ps = append(ps, p)
		cfg := procConfig{PGURL: b.stack.PGURL, Schema: schema, Name: r.name + "-p" + strconv.Itoa(i),
			Goroutines: r.goroutines / procs, Conns: r.conns / procs}
		if err := json.NewEncoder(p.in).Encode(cfg); err != nil {
			return res, fmt.Errorf("%s: %w", r.name, err)
		}
	}
	for _, p := range ps {
		if _, err := p.next(); err != nil {
			return res, fmt.Errorf("%s: %w", r.name, err)
		}
	}
	at := time.Now().Add(procGoAhead).UnixNano()
	for _, p := range ps {
		if err := json.NewEncoder(p.in).Encode(at); err != nil {
			return res, fmt.Errorf("%s: %w", r.name, err)
		}
	}
	var last, firstStart, lastStart int64
	for i, p := range ps {
		rep, err := p.next()
		if err != nil {
			return res, fmt.Errorf("%s: %w", r.name, err)
		}
		last, lastStart = max(last, rep.LastEnd), max(lastStart, rep.LastStart)
		if i == 0 || rep.FirstStart < firstStart {
			firstStart = rep.FirstStart
		}
		res.out.sold += rep.Sold
		res.out.soldOut += rep.SoldOut
		res.out.saleErrs += rep.Errs
		if rep.Err != "" {
			res.out.firstSaleErr = cmp.Or(res.out.firstSaleErr, errors.New(rep.Err))
		}
	}
	store, err := seatdb.Open(ctx, b.stack.PGURL, schema, 1)
	if err != nil {
		return res, fmt.Errorf("%s: %w", r.name, err)
	}
	defer store.Close()
	if err := verifyRace(ctx, r, store, res.out); err != nil {
		return res, fmt.Errorf("%s: %w", r.name, err)
	}
	res.wall, res.skew = Known(float64(last-at)/1e6), Known(float64(lastStart-firstStart)/1e6)
	return res, nil
}
