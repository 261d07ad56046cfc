package fault

import (
	"context"
	"errors"
	"syscall"
	"time"
)

// SaleState is where a watched holder's sale stands, looked at from
// outside while its process is stopped.
type SaleState int

// The states of a watched holder's sale.
const (
	// SaleGone: the lock is no longer the holder's: it sold (or gave up)
	// and released it before it could be stopped.
	SaleGone SaleState = iota
	// SalePending: it holds the lock, and its sale is not seen inside yet:
	// its transaction (if begun) has written nothing, or is not seen to
	// stay open while it is stopped.
	SalePending
	// SaleInside: its transaction has written and not committed: its rows
	// stay locked, and what it read stays what it acts on, while it is
	// stopped; stopping or killing it now matters to the sale.
	SaleInside
)

// ErrMissed is what Strike returns when a watched holder got through its
// sale before it could be stopped inside it: it was let go at once, and
// another holder should be struck instead.
var ErrMissed = errors.New("the holder was not caught inside its sale")

// stopInside stops a watched holder inside its sale, and points t at the
// process it stopped. It steps the holder (SIGSTOP, look, SIGCONT a
// moment) until its transaction has written. A holder already through its
// sale when first looked at (the watch saw it late) is let go, and the
// next process whose sale writes is caught instead (CatchWriter), for as
// long as the fault lasts; so is a holder the watch could not trace to a
// process. A holder struck at a point of its attempt is
// taken as it is.
func stopInside(ctx context.Context, c *Coordinator, t *Target) error {
	if !t.Watched || c.Sale == nil {
		return nil
	}
	err := ErrMissed // a holder not traced to a process (its client reached Redis through a proxy) is caught by its write
	if t.Proc >= 0 {
		err = step(ctx, c, *t)
	}
	if !errors.Is(err, ErrMissed) || c.CatchWriter == nil {
		return err
	}
	catch, cancel := context.WithTimeout(ctx, max(c.PauseFor, time.Second))
	defer cancel()
	proc, err := c.CatchWriter(catch)
	if err == nil && proc != t.Proc {
		t.Proc, t.RequestID = proc, c.Procs.Name(proc)
	}
	return err
}

// step steps holder t until its transaction has written, leaving it
// stopped, or returns ErrMissed once it is through its sale.
func step(ctx context.Context, c *Coordinator, t Target) error {
	for range maxSteps {
		if _, err := c.Procs.Signal(t.Proc, syscall.SIGSTOP); err != nil {
			_, _ = c.Procs.Signal(t.Proc, syscall.SIGCONT) // it may have stopped all the same
			return err
		}
		st, err := c.Sale(ctx, t.Proc, t.Token)
		if err == nil && st == SaleInside {
			return nil
		}
		if err == nil && st == SaleGone {
			err = ErrMissed
		}
		if _, cerr := c.Procs.Signal(t.Proc, syscall.SIGCONT); cerr != nil && err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		Spin(stepFor)
	}
	return ErrMissed
}

// maxSteps and stepFor bound stopInside: a holder is let run stepFor at a
// time, at most maxSteps times.
const (
	maxSteps = 200
	stepFor  = 50 * time.Microsecond
)

// Spin waits d without sleeping: a timer's wake-up is coarser than the
// steps a stopped process is let run.
func Spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
