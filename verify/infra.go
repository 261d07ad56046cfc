package verify

import (
	"fmt"

	"github.com/hammer-load/hammer/history"
)

// ledgerChecks names the checks that need the ledger, for the reason given
// when it could not be read.
const ledgerChecks = "oversell, conservation, double-sold, missing-sale, phantom-sale and stuck-lock"

// ledgerRead reports whether the ledger was read back after the race: no
// check that counts its rows is made on a ledger that was not read.
func (x *index) ledgerRead() bool { return x.in.LedgerUnread == "" }

// ledgerWhole reports whether the whole ledger was read back: a ledger
// cut short (LedgerTruncated) proves what its rows show (an oversell, a
// seat sold twice, a phantom sale), never what it lacks (a missing sale,
// a counter that does not add up).
func (x *index) ledgerWhole() bool { return x.ledgerRead() && x.in.LedgerTruncated == 0 }

// truncatedGap says what a ledger cut short proves and what was not
// judged for it; empty when the ledger was read whole or not at all.
func (x *index) truncatedGap() []string {
	n := x.in.LedgerTruncated
	if n == 0 || !x.ledgerRead() {
		return nil
	}
	attempts := len(x.in.Attempts)
	if x.in.RequestsPerWorker != nil {
		attempts = 0
		for _, r := range x.in.RequestsPerWorker {
			attempts += r
		}
	}
	proof := "the rows read already prove the oversell"
	if len(x.in.Sales) <= x.in.Seats {
		proof = fmt.Sprintf("yet only %d rows were saved, which prove no oversell", len(x.in.Sales))
	}
	return []string{fmt.Sprintf("the ledger was truncated at %d rows, more than the %d seats and the %d attempts of the race: %s, so the rest was not read, and conservation and missing-sale were not judged",
		n, x.in.Seats, attempts, proof)}
}

// trouble is the first sign that server failed during the run: the
// earliest outage the health checks saw or attempt that ended in an
// infrastructure error from it, with what was seen then.
func (x *index) trouble(server string) (at int64, what string, ok bool) {
	for _, o := range x.in.Outages {
		if o.Server == server && (!ok || o.From < at) {
			at, what, ok = o.From, o.Err, true
		}
	}
	for _, a := range x.in.Attempts {
		if a.Infra == server && (!ok || a.Complete < at) {
			at, what, ok = a.Complete, a.Err, true
		}
	}
	return at, what, ok
}

// since renders an instant as an offset from the go signal.
func (x *index) since(at int64) string { return history.Offset(x.in.GoAt, at) }

// troubleAt says when and how server first failed, e.g. "postgresql became
// unreachable at +1.3s (dial tcp …: connection refused)"; "" when it
// never did.
func (x *index) troubleAt(server string) string {
	at, what, ok := x.trouble(server)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s became unreachable at %s (%s)", server, x.since(at), what)
}

// infraGaps are the reasons the infrastructure, not the strategy, leaves a
// run undetermined: a ledger that was not read back, attempts that ended
// in an infrastructure error no injected fault explains, and acknowledged
// sales a restarted PostgreSQL may have lost. Each reads as one line: what
// failed, when, and what was therefore not judged.
func (x *index) infraGaps() []string {
	var out []string
	if !x.ledgerRead() {
		head := "the ledger could not be read back"
		if t := x.troubleAt(history.ServerPostgreSQL); t != "" {
			head = t + " and the ledger could not be read back"
		}
		out = append(out, fmt.Sprintf("%s (%s), so %s were not judged", head, x.in.LedgerUnread, ledgerChecks))
	}
	out = append(out, x.truncatedGap()...)
	if !x.in.Fault.ExplainsErrors() {
		for _, server := range []string{history.ServerRedis, history.ServerPostgreSQL} {
			if n := x.infraErrors(server); n > 0 {
				out = append(out, fmt.Sprintf("%s: %s ended in an infrastructure error, so the strategy was not judged on them",
					x.troubleAt(server), plural(n, "attempt", "attempts")))
			}
		}
	}
	if _, _, lost := x.unackedSales(); lost > 0 {
		out = append(out, fmt.Sprintf("%s, and %s told %s got a seat before that %s no ledger row: a server that restarts can lose commits it acknowledged, so missing-sale was not judged for %s",
			x.restart(history.ServerPostgreSQL), plural(lost, "attempt", "attempts"),
			pick(lost, "it", "they"), pick(lost, "has", "have"), pick(lost, "it", "them")))
	}
	return out
}

// infraErrors counts the attempts that ended in an infrastructure error
// from server.
func (x *index) infraErrors(server string) int {
	n := 0
	for _, a := range x.in.Attempts {
		if a.Outcome == history.Error && a.Infra == server {
			n++
		}
	}
	return n
}

// restartedAfter reports whether server came back as another process
// (restarted, or replaced by a failover) after instant at: whatever it held
// in memory at that instant, or had acknowledged without flushing, may be
// gone since. Outages are on the coordinator's clock: on agents, at is
// taken as early as its clock could be off.
func (x *index) restartedAfter(server string, at int64) bool {
	for _, o := range x.in.Outages {
		if o.Server == server && o.Restarted && o.To >= at-x.maxClockError() {
			return true
		}
	}
	return false
}

// restartedBetween reports whether server came back as another process
// during the span from to to.
func (x *index) restartedBetween(server string, from, to int64) bool {
	for _, o := range x.in.Outages {
		if e := x.maxClockError(); o.Server == server && o.Restarted && o.From <= to+e && o.To >= from-e {
			return true
		}
	}
	return false
}

// restart says when server first came back as another process, e.g.
// "postgresql restarted between +1.2s and +4.3s (EOF)".
func (x *index) restart(server string) string {
	for _, o := range x.in.Outages {
		if o.Server == server && o.Restarted {
			return fmt.Sprintf("%s restarted between %s and %s (%s)", server, x.since(o.From), x.since(o.To), o.Err)
		}
	}
	return server + " restarted"
}

// outageNotes tells of the outages the health checks saw, with their span.
func (x *index) outageNotes() []string {
	var out []string
	for _, o := range x.in.Outages {
		until := "and did not answer again"
		if o.To != 0 {
			until = "to " + x.since(o.To)
		}
		what := "did not answer hammer's health check"
		if o.Restarted {
			what = "came back as another process (restarted or failed over) after"
		}
		out = append(out, fmt.Sprintf("%s %s from %s %s (%s)", o.Server, what, x.since(o.From), until, o.Err))
	}
	return out
}
