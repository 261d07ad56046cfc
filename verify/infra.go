package verify

import (
	"fmt"

	"github.com/hammer-load/hammer/folder"
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

// ledgerUsable reports whether the ledger was read and its rows are
// evidence: not when it was cut short with no more of the race's own
// sales than seats. The read stops early only once it holds more, so
// such a ledger was cut at its row limit: it returns more rows than the
// race made attempts, rows that are no sale of the race, and what they
// show may be the ledger query's mistake rather than the strategy's.
func (x *index) ledgerUsable() bool {
	return x.ledgerRead() && (x.in.LedgerTruncated == 0 || x.ownSales > x.in.Seats)
}

// distinctOwn counts the distinct request ids of sales that are the
// race's own: those of an attempt in the history.
func distinctOwn(sales []history.Sale, attempts map[string][]history.Attempt) int {
	seen := map[string]bool{}
	for _, s := range sales {
		if len(attempts[s.RequestID]) > 0 {
			seen[s.RequestID] = true
		}
	}
	return len(seen)
}

// truncatedGap says what a ledger cut short proves and what was not
// judged for it; empty when the ledger was read whole or not at all, or
// changed after the run (its rows then say nothing of the cut, and the
// integrity problem says why).
func (x *index) truncatedGap() []string {
	n := x.in.LedgerTruncated
	if n == 0 || !x.ledgerRead() || x.changed(folder.LedgerFile) {
		return nil
	}
	if x.ledgerUsable() {
		return []string{fmt.Sprintf("the ledger was read up to its first %s, which hold %d distinct sales of this race's own requests, more than the %d seats: they prove the oversell, so the rest was not read, and conservation and missing-sale were not judged",
			plural(n, "row", "rows"), x.ownSales, x.in.Seats)}
	}
	query, fix := "hammer's ledger", ""
	if x.againstService() {
		query, fix = "the ledger query", ": check `truth.ledger` in the target file"
	}
	return []string{fmt.Sprintf("%s returns more rows than the race made attempts (%s read, %d of them this race's sales)%s; those rows prove nothing, so the checks that read the ledger were not judged",
		query, plural(n, "row", "rows"), x.ownSales, fix)}
}

// againstService reports whether the run raced a user's service (its
// attempts name replicas) rather than hammer's own strategies.
func (x *index) againstService() bool {
	return len(x.in.Attempts) > 0 && x.in.Attempts[0].Replica != ""
}

// truncatedIntegrity is the problem of a run that says its ledger was cut
// at another number of rows than its ledger holds: the rows read are
// what was saved, so one of them changed after the run.
func truncatedIntegrity(in Input) []folder.Problem {
	if in.LedgerTruncated == 0 || in.LedgerUnread != "" || in.LedgerTruncated == len(in.Sales) {
		return nil
	}
	return []folder.Problem{{File: folder.LedgerFile, Changed: true, Detail: fmt.Sprintf(
		"%s holds %s of %s, but %s records the ledger truncated at %d rows read",
		folder.LedgerFile, plural(len(in.Sales), "row", "rows"), runName(in.Run), folder.ManifestFile, in.LedgerTruncated)}}
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
