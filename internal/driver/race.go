package driver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/wire"
	"github.com/hammer-load/hammer/latency"
)

// Race runs one scenario end to end. An error means the race could not be
// run at all (setup failed); trouble during the race is reported in
// Result.Run.Incomplete instead, so the verdict becomes unknown.
func Race(ctx context.Context, o Options) (res *Result, err error) {
	if err := o.Scenario.Lock.CheckMode(o.Scenario.Mode); err != nil {
		return nil, err
	}
	began := time.Now()
	o = o.withDefaults()
	o, stopOwn, err := ownRedis(ctx, o)
	if err != nil {
		return nil, err
	}
	defer func() { // last: after the clean-up, which may still use it
		switch serr := stopOwn(); {
		case serr == nil:
		case res != nil:
			res.Warnings = append(res.Warnings, serr.Error())
		default:
			err = fmt.Errorf("%w; %w", err, serr)
		}
	}()
	name := o.Scenario.Name
	schema := seatdb.SchemaName(o.RunID, name)
	prefix := "hammer:" + o.RunID + ":" + name + ":"
	br := BackendRace{Run: name, Schema: schema, KeyPrefix: prefix, PGURL: o.PGURL, Seats: o.Seats, LockTTL: o.LockTTL,
		Ledger: seatdb.Bound{Rows: seatdb.LedgerLimit(o.Seats, recordsExpected(o)), Seats: o.Seats}}
	if err = o.Backend.Create(ctx, br); err != nil {
		return nil, err
	}
	td := &teardown{schema: schema, prefix: prefix}
	if !o.Keep {
		defer func() {
			switch cerr := cleanup(o, td); {
			case cerr == nil:
			case res != nil:
				res.Warnings = append(res.Warnings, strings.Split(cerr.Error(), "\n")...)
			case err != nil: // set-up failed: say what it left behind too
				err = fmt.Errorf("%w; %w", err, cerr)
			}
		}()
	}
	commit, warnings := measureCommit(ctx, o, schema)
	cfg := newWorkerConfig(o, schema, prefix)
	td.keys = raceKeys(o, cfg)
	env, err := setUpFaults(ctx, o, &cfg)
	if err != nil {
		return nil, err
	}
	defer env.tearDown(ctx)
	setUp, err := env.watchSetUp(o)
	if err != nil {
		return nil, err
	}
	serving, err := startBackend(ctx, o, br, env, &cfg)
	if err != nil {
		setUp.stop()
		return nil, worldOrSetUp(ctx, err, setUp.w.Down())
	}
	defer serving.stop()
	ws, err := startWorkers(ctx, o, cfg)
	if err != nil {
		setUp.stop()
		return nil, err
	}
	defer ws.shutdown()
	if err := ws.awaitReady(ctx, o.ReadyTimeout, setUp.w.Down()); err != nil {
		setUp.stop()
		td.redisDown, td.pgDown = errors.Is(err, errRedisDown), errors.Is(err, errPostgresDown)
		return nil, err
	}
	setUp.done() // before the race's own watch, which takes its connections
	watch, err := env.watch(o)
	if err != nil {
		return nil, err
	}
	res = &Result{Run: newRun(o), Warnings: warnings}
	res.Run.RequestsPerWorker = requestsPerWorker(o)
	res.Run.CommitLatency = int64(commit)
	strikes := &striker{o: o, onFault: o.OnFault, onStrike: o.OnStrike, fault: env.fault, coord: env.coordinator(o, ws, cfg), fleet: ws, left: len(cfg.Schedule)}
	stopHolders := serving.strikeHolders(ctx, strikes, cfg, func(w string) { res.Warnings = append(res.Warnings, w) })
	res.Run.GoAt = ws.release()
	if o.OnGo != nil {
		o.OnGo(ws.pids())
	}
	if o.OnGoAt != nil {
		o.OnGoAt(res.Run.GoAt)
	}
	env.startWindow(ctx, o, res.Run.GoAt)
	res.Attempts, res.Faults, res.Latency, res.Run.Incomplete = ws.collect(ctx, o, strikes, watch.Down(), res.Run.GoAt)
	res.Locks = lockClaims(stopHolders(), name, res.Latency)
	ws.resync(o)
	res.Run.Agents = ws.agents(o)
	res.Run.RealtimeWorkers = ws.realtimeWorkers()
	res.Run.WorkerGoMaxProcs = ws.goMaxProcs()
	res.Faults = append(res.Faults, strikes.finish()...)
	for _, ev := range env.windowEvents() {
		res.Faults = append(res.Faults, ev)
		if o.OnFault != nil {
			o.OnFault(ev)
		}
	}
	res.Run.Incomplete = append(res.Run.Incomplete, faultGaps(o, len(cfg.Schedule), res.Faults, len(res.Locks), o.Backend.LockKey(prefix))...)
	if ctx.Err() != nil && !slices.Contains(res.Run.Incomplete, interrupted) {
		res.Run.Incomplete = append(res.Run.Incomplete, interrupted)
	}
	res.Run.Incomplete = append(res.Run.Incomplete, ws.wait()...)
	res.Run.Incomplete = append(res.Run.Incomplete, serving.stop()...)
	res.Run.ReplicaLogs = serving.logs()
	res.Attempts = fillUnknown(res.Attempts, o, name)
	br.Ledger.Ours = requestSet(res.Attempts)
	back := o.Backend.ReadBack(ctx, br, readBackWait(o, began))
	res.Run.Outages = watch.Stop()
	td.redisDown = downAtEnd(res.Run.Outages, history.ServerRedis)
	// A PostgreSQL the read-back reached came back, whatever the watch saw.
	td.pgDown = downAtEnd(res.Run.Outages, history.ServerPostgreSQL) && back.LedgerErr != nil
	res.addReadBack(back)
	return res, nil
}

// readBackWait is how long the read-back after a race begun at began
// keeps trying while PostgreSQL fails: o.ReadBackWait, cut to what is left
// of o.Timeout counted from began, so that --timeout bounds the run as a
// whole (once it passed, the read-back gets one try, of at most 5 s).
func readBackWait(o Options, began time.Time) time.Duration {
	return max(0, min(o.ReadBackWait, time.Until(began.Add(o.Timeout))))
}

// addReadBack records what was read back after the race, and why what
// could not be read was not; a ledger cut short is recorded as such,
// with the number of rows read.
func (res *Result) addReadBack(back seatdb.ReadBack) {
	res.Sales, res.Sector, res.Run.NoCounter = back.Sales, back.Sector, back.NoCounter
	if back.Truncated {
		res.Run.LedgerTruncated = len(back.Sales)
	}
	if back.LedgerErr != nil {
		res.Run.LedgerUnread = back.LedgerErr.Error()
	}
	if back.SectorErr != nil {
		res.Run.Incomplete = append(res.Run.Incomplete, back.SectorErr.Error())
	}
	if res.Sector != nil {
		res.Sectors = []history.Sector{*res.Sector}
	}
}

// requestSet reports whether a request id is one of attempts': the ids
// the race's contenders sent, as verify knows them from the history.
func requestSet(attempts []history.Attempt) func(string) bool {
	ids := make(map[string]bool, len(attempts))
	for _, a := range attempts {
		ids[a.RequestID] = true
	}
	return func(id string) bool { return ids[id] }
}

// worldOrSetUp is the error of a backend that did not start. One the
// user's set-up caused (ErrBackendSetUp) is the world's after all when ctx
// ended or a server was seen down meanwhile: a service that exits because
// its database went away is not set up wrong.
func worldOrSetUp(ctx context.Context, err error, down <-chan history.Outage) error {
	if !errors.Is(err, ErrBackendSetUp) {
		return err
	}
	select {
	case o, ok := <-down:
		if ok {
			return fmt.Errorf("%s (%s stopped answering meanwhile)", err, o.Server)
		}
	default:
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s (%v meanwhile)", err, ctx.Err())
	}
	return err
}

// interrupted is the reason a run stopped by Ctrl-C (or SIGTERM) is incomplete.
const interrupted = "run interrupted; workers were killed"

// faultGaps says why a run's fault cannot be taken as having struck: an
// injection failed, or fewer holders were struck than scheduled (the race
// had too few of them, or, for a service whose lock hammer watches, no
// claim at all on lockKey was seen: the wrong key, or a variant that takes
// no lock). Judging such a run as if the fault had struck would call it
// safe without evidence.
func faultGaps(o Options, scheduled int, events []history.FaultEvent, claims int, lockKey string) []string {
	var gaps []string
	for _, e := range events {
		if e.Failed != "" {
			gaps = append(gaps, fmt.Sprintf("fault %s failed: %s", e.Fault, e.Failed))
		}
	}
	if scheduled > 0 && len(events) < scheduled {
		why := "the holders it was scheduled for never reached its point"
		// A watch that failed saw no claim either: its own gap says why.
		if _, watched := o.Backend.(Holders); watched && claims == 0 && lockKey != "" && len(gaps) == 0 {
			why = fmt.Sprintf("Redis saw no command on the lock key %s during the race: check the target file's lock_key, or race a variant that takes the lock", lockKey)
		}
		gaps = append(gaps, fmt.Sprintf("fault %s struck %d of the %d lock holders scheduled: %s",
			o.Scenario.Fault, len(events), scheduled, why))
	}
	return gaps
}

// collect gathers attempt records until every worker has finished, the
// timeout passes, a server is reported down or ctx ends, handing strike
// requests to s. It returns the records, the fault events workers reported
// and, if the history is incomplete, why. The records of an open-model
// race wait on disk until it is over (see spill); a closed model's, as
// many as its contenders, in memory.
func (f *fleet) collect(ctx context.Context, o Options, s *striker, down <-chan history.Outage, goAt int64) ([]history.Attempt, []history.FaultEvent, *latency.Set, []string) {
	var attempts []history.Attempt
	var sp *spill
	if o.Rate > 0 {
		sp, _ = newSpill() // without one, the records stay in memory
	}
	if sp == nil {
		attempts = make([]history.Attempt, 0, recordsExpected(o))
	}
	var events []history.FaultEvent
	var incomplete []string
	lat := latency.NewSet()
	shipped := make([]bool, len(f.ws))
	timer := time.NewTimer(o.Timeout + goDelay)
	defer timer.Stop()
	ship := shipping{}
	stop := func(why string) {
		incomplete = append(incomplete, why)
		if !ship.begin(f) {
			f.kill()
		}
	}
	for open := len(f.ws); open > 0; {
		select {
		case ev := <-f.events:
			switch {
			case ev.eof:
				open--
				f.ws[ev.proc].gone = true
				f.finish(ev.proc)
				if ship.answered(ev.proc) {
					f.kill()
				}
				switch {
				case ev.end == nil || f.ws[ev.proc].crashed.Load():
				case errors.Is(ev.end, agent.ErrLost):
					// Its agent was lost: nothing more will be heard of it.
					stop(fmt.Sprintf("%s at %s; the race was stopped, so the attempts still running, and those whose records its worker had not sent yet (up to a second's), were not judged",
						ev.end, history.Offset(goAt, time.Now().UnixNano())))
				default:
					incomplete = append(incomplete, fmt.Sprintf("worker %d: %v", ev.proc, ev.end))
				}
			case ev.msg.Strike != nil:
				st := ev.msg.Strike
				s.handle(ctx, fault.Target{Proc: st.Proc, Goroutine: st.Goroutine, RequestID: st.RequestID, Key: st.Key})
			case ev.msg.Begin != nil:
				if o.OnStrike != nil {
					o.OnStrike(*ev.msg.Begin)
				}
			case ev.msg.Event != nil:
				events = append(events, *ev.msg.Event)
				if o.OnFault != nil {
					o.OnFault(*ev.msg.Event)
				}
			case ev.msg.Histograms != nil:
				if got, err := latency.Decode(ev.msg.Histograms); err == nil {
					lat.Merge(got)
					shipped[ev.proc] = true
				}
			case ev.msg.Attempt != nil:
				if sp != nil {
					sp.add(ev.msg.Attempt)
				} else {
					attempts = append(attempts, *ev.msg.Attempt)
				}
				if o.OnAttempt != nil {
					o.OnAttempt(*ev.msg.Attempt)
				}
			case ev.msg.Finished:
				f.finish(ev.proc)
			case ev.msg.Done:
				f.ws[ev.proc].done = true
				f.ws[ev.proc].realtime = ev.msg.Realtime
			case ev.msg.Shipped:
				if ship.answered(ev.proc) {
					f.kill()
				}
			}
		case <-ship.deadline:
			ship.deadline = nil
			f.kill()
		case <-timer.C:
			stop(fmt.Sprintf("run exceeded --timeout %s; workers were killed", o.Timeout))
			timer.Reset(time.Hour)
		case out := <-down:
			stop(fmt.Sprintf("%s stopped answering at %s (%s); the race was stopped at %s, so the attempts still running were not judged",
				out.Server, history.Offset(goAt, out.From), out.Err, history.Offset(goAt, time.Now().UnixNano())))
			down = nil
		case <-ctx.Done():
			stop(interrupted)
			ctx = context.WithoutCancel(ctx)
		}
	}
	if sp != nil {
		var err error
		if attempts, err = sp.all(attempts); err != nil {
			incomplete = append(incomplete, err.Error())
		}
	}
	// A worker that died (or could not encode) shipped no histograms: record
	// the attempts it did report here, as it would have.
	for _, a := range attempts {
		if !shipped[a.Proc] {
			lat.Observe(a)
		}
	}
	lat.ObserveHandoffs(attempts)
	return attempts, events, lat, incomplete
}

// shipGrace is how long a stopped race waits for its workers to send the
// records they hold before they are killed: a worker that is itself
// stopped (SIGSTOP) or gone cannot answer.
const shipGrace = 250 * time.Millisecond

// shipping is a stopped race asking its workers for the records they hold
// (see internal/worker's outbox) before it kills them, so that stopping
// loses no attempt that had ended.
type shipping struct {
	asked    map[int]bool // workers asked that have not answered or ended
	deadline <-chan time.Time
}

// begin marks every worker stopped and asks those still running for their
// records. It reports whether the race should wait for answers: false
// when no worker could be asked, or, on a later call, once the answers are
// in or the grace is over (kill them at once).
func (s *shipping) begin(f *fleet) bool {
	if s.asked != nil {
		return s.deadline != nil
	}
	s.asked = map[int]bool{}
	for p, w := range f.ws {
		w.stopped = true
		if !w.done && !w.crashed.Load() && !w.proc.ended() && w.proc.send(wire.Control{Ship: true}) == nil {
			s.asked[p] = true
		}
	}
	if len(s.asked) == 0 {
		return false
	}
	s.deadline = time.After(shipGrace)
	return true
}

// answered notes that worker p sent its records (or ended). It reports
// whether that was the last answer awaited: time to kill the workers.
func (s *shipping) answered(p int) bool {
	if !s.asked[p] {
		return false
	}
	delete(s.asked, p)
	if len(s.asked) > 0 {
		return false
	}
	s.deadline = nil
	return true
}
