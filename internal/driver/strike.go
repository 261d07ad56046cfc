package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/wire"
)

// striker is the coordinator's side of fault injection: it hands the
// contenders that reach their fault point to the fault, records what the
// fault did, and resumes at once the ones past the scheduled strikes.
type striker struct {
	o     Options
	fault fault.Injector
	coord *fault.Coordinator
	fleet *fleet
	// onMiss, if set, is told when a strike missed, to strike another.
	onMiss func()
	// onFault, if set, is told of every event as it is recorded.
	onFault func(history.FaultEvent)
	// onStrike, if set, is told of every strike as it begins.
	onStrike func(history.FaultEvent)

	mu     sync.Mutex
	left   int // strikes still to make; later requests resume at once
	missed int
	events []history.FaultEvent
	wg     sync.WaitGroup
}

// handle acts on one strike without blocking the collector: a worker's
// request, or a holder a backend's watch found.
func (s *striker) handle(ctx context.Context, t fault.Target) {
	s.mu.Lock()
	take := s.left > 0
	if take {
		s.left--
	}
	s.mu.Unlock()
	if !take {
		s.coord.Procs.Resume(t)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		start := time.Now()
		if s.onStrike != nil {
			s.onStrike(history.FaultEvent{Run: s.o.Scenario.Name, Fault: s.o.Scenario.Fault, Proc: t.Proc, Goroutine: t.Goroutine,
				RequestID: t.RequestID, Start: start.UnixNano()})
		}
		detail, err := s.fault.Strike(ctx, s.coord, &t)
		if errors.Is(err, fault.ErrMissed) && s.miss() {
			return
		}
		// t now names what was struck: a watched holder through its sale
		// hands the strike on to another process.
		ev := history.FaultEvent{
			Run: s.o.Scenario.Name, Fault: s.o.Scenario.Fault, Proc: t.Proc, Goroutine: t.Goroutine,
			RequestID: t.RequestID, Start: start.UnixNano(), End: time.Now().UnixNano(), Detail: detail,
		}
		var unmet *fault.Unmet
		switch {
		case errors.As(err, &unmet):
			ev.Unmet = unmet.Why
		case err != nil:
			ev.Detail, ev.Failed = fmt.Sprintf("%s on %s", s.o.Scenario.Fault, t.RequestID), err.Error()
		}
		s.record(ev)
	}()
}

// maxMisses is how many holders a watch may find outside their
// transaction before the fault is taken as failed.
const maxMisses = 100

// miss gives back the strike of a holder found outside its transaction,
// so that a later holder is struck instead, and reports whether it may.
func (s *striker) miss() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.missed >= maxMisses {
		return false
	}
	s.missed++
	s.left++
	if s.onMiss != nil {
		s.onMiss()
	}
	return true
}

// record keeps a fault event, stamped with the race and its fault.
func (s *striker) record(ev history.FaultEvent) {
	ev.Run, ev.Fault = s.o.Scenario.Name, s.o.Scenario.Fault
	if ev.Start == 0 {
		ev.Proc, ev.Goroutine, ev.Start, ev.End = -1, -1, time.Now().UnixNano(), time.Now().UnixNano()
	}
	s.mu.Lock()
	s.events = append(s.events, ev)
	s.mu.Unlock()
	if s.onFault != nil {
		s.onFault(ev)
	}
}

// finish waits for strikes in progress and returns the fault events.
func (s *striker) finish() []history.FaultEvent {
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events
}

var _ fault.Procs = (*fleet)(nil)

// Signal implements fault.Procs: a worker on an agent is signalled by
// its agent, on its own host.
func (f *fleet) Signal(proc int, sig syscall.Signal) (int, error) {
	return f.ws[proc].proc.signal(sig)
}

// Name implements fault.Procs: "worker 2", or "worker 2 on agent 2 (host, addr)".
func (f *fleet) Name(proc int) string {
	if where := f.ws[proc].proc.where(); where != "" {
		return fmt.Sprintf("worker %d on %s", proc, where)
	}
	return fmt.Sprintf("worker %d", proc)
}

// Crashed implements fault.Procs: the worker's death is on purpose.
func (f *fleet) Crashed(proc int) { f.ws[proc].crashed.Store(true) }

// Resume implements fault.Procs: it tells the worker that the struck
// attempt may go on.
func (f *fleet) Resume(t fault.Target) {
	// A worker that cannot read has died; the collector notices.
	_ = f.ws[t.Proc].proc.send(wire.Control{Resume: t.Key})
}
