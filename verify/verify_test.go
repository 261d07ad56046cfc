package verify

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/linearize"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name        string
		in          Input
		wantStatus  Status
		wantSummary string
	}{
		{
			name:        "clean-sellout",
			in:          new(race).sold(1, 100).refused(40, history.SoldOut).refused(10, history.LockTimeout).input(100, 100, 0),
			wantStatus:  Valid,
			wantSummary: "valid: 100/100 sold",
		},
		{
			name:        "partial-sale",
			in:          new(race).sold(1, 97).refused(3, history.Rejected).input(100, 100, 3),
			wantStatus:  Valid,
			wantSummary: "valid: 97/100 sold",
		},
		{
			name:        "none-mode-oversell",
			in:          oversold().input(100, 100, 0),
			wantStatus:  Invalid,
			wantSummary: "invalid: oversell (sold 103 of 100), conservation (available 0 + 103 sale rows = 103, not the capacity 100), double-sold (2 seats: 7, 42)",
		},
		{
			name: "double-sold-without-oversell",
			in: new(race).sold(1, 99).
				attempt("late", history.Sold, 5).row("late", 5).input(100, 100, 0),
			wantStatus:  Invalid,
			wantSummary: "invalid: double-sold (1 seat: 5)",
		},
		{
			name: "double-sold-many-times",
			in: func() Input {
				r := new(race).sold(1, 92)
				for range 7 {
					id := reqID(len(r.attempts))
					r.attempt(id, history.Sold, 9).row(id, 9)
				}
				return r.input(100, 100, 1)
			}(),
			wantStatus:  Invalid,
			wantSummary: "invalid: double-sold (1 seat: 9)",
		},
		{
			name:        "conservation-lost-update",
			in:          new(race).sold(1, 95).input(100, 100, 10),
			wantStatus:  Invalid,
			wantSummary: "invalid: conservation (available 10 + 95 sale rows = 105, not the capacity 100)",
		},
		{
			name:        "capacity-mismatch",
			in:          new(race).sold(1, 100).input(100, 120, 20),
			wantStatus:  Invalid,
			wantSummary: "invalid: conservation (sector 1 has capacity 120 but the run was configured for 100 seats)",
		},
		{
			name: "lost-acknowledgement",
			in: new(race).sold(1, 98).
				attempt("p9-g1", history.Error, 0).row("p9-g1", 99).
				attempt("p9-g2", history.Error, 0).
				attempt("p9-g3", history.Sold, 100).row("p9-g3", 100).
				input(100, 100, 0).with(func(in *Input) { in.Fault = "partition" }),
			wantStatus:  Valid,
			wantSummary: "valid: 100/100 sold",
		},
		{
			name: "seat-not-reported",
			in: new(race).sold(1, 99).
				attempt("p9-g1", history.Sold, 0).row("p9-g1", 100).input(100, 100, 0),
			wantStatus:  Valid,
			wantSummary: "valid: 100/100 sold",
		},
		{
			name: "missing-sale",
			in: new(race).sold(1, 99).
				attempt("p9-g1", history.Sold, 100).input(100, 100, 1),
			wantStatus:  Invalid,
			wantSummary: "invalid: missing-sale (1 attempt was told it got a seat but has no ledger row)",
		},
		{
			name: "missing-sale-wrong-seat",
			in: new(race).sold(1, 98).
				attempt("p9-g1", history.Sold, 99).row("p9-g1", 100).
				attempt("p9-g2", history.Sold, 100).row("p9-g2", 99).
				input(100, 100, 0),
			wantStatus:  Invalid,
			wantSummary: "invalid: missing-sale (2 attempts were told one seat but their ledger rows hold another)",
		},
		{
			name: "ledger-lost",
			in: func() Input {
				in := new(race).sold(1, 100).input(100, 100, 0)
				in.Sales = nil
				return in
			}(),
			wantStatus:  Invalid,
			wantSummary: "invalid: conservation (available 0 + 0 sale rows = 0, not the capacity 100), missing-sale (100 attempts were told they got a seat but have no ledger row)",
		},
		{
			name: "phantom-sale-refused",
			in: new(race).sold(1, 98).
				attempt("p9-g1", history.SoldOut, 0).row("p9-g1", 99).
				attempt("p9-g2", history.LockTimeout, 0).row("p9-g2", 100).
				input(100, 100, 0),
			wantStatus:  Invalid,
			wantSummary: "invalid: phantom-sale (2 ledger rows belong to attempts that were told they got no seat)",
		},
		{
			name:        "phantom-sale-no-attempt",
			in:          new(race).sold(1, 99).row("ghost", 100).input(100, 100, 0),
			wantStatus:  Invalid,
			wantSummary: "invalid: phantom-sale (1 ledger row belongs to no attempt in the history)",
		},
		{
			name: "orphan-row-incomplete",
			in: incomplete(new(race).sold(1, 99).row("p3-g99", 100).input(100, 100, 0),
				"worker 3 exited before reporting"),
			wantStatus:  Unknown,
			wantSummary: "unknown: history incomplete: worker 3 exited before reporting",
		},
		{
			name: "duplicate-request-attempts",
			in: new(race).sold(1, 100).
				attempt("p0-g0", history.SoldOut, 0).input(100, 100, 0),
			wantStatus:  Invalid,
			wantSummary: "invalid: duplicate-request (1 request id appears in more than one attempt)",
		},
		{
			name: "duplicate-request-ledger",
			in: new(race).sold(1, 99).
				row("p0-g0", 100).input(100, 100, 0),
			wantStatus:  Invalid,
			wantSummary: "invalid: duplicate-request (1 request id appears in more than one ledger row)",
		},
		{
			name: "incomplete-no-violations",
			in: incomplete(new(race).sold(1, 80).refused(20, history.Unknown).input(100, 100, 20),
				"worker 2 exited before reporting"),
			wantStatus:  Unknown,
			wantSummary: "unknown: history incomplete: worker 2 exited before reporting",
		},
		{
			name: "incomplete-with-oversell",
			in: incomplete(oversold().refused(50, history.Unknown).input(100, 100, 0),
				"run timed out after 30s"),
			wantStatus:  Invalid,
			wantSummary: "invalid: oversell (sold 103 of 100), conservation (available 0 + 103 sale rows = 103, not the capacity 100), double-sold (2 seats: 7, 42)",
		},
		{
			name:        "nil-sector",
			in:          withoutSector(new(race).sold(1, 100).input(100, 100, 0)),
			wantStatus:  Unknown,
			wantSummary: "unknown: final sector row was not read",
		},
		{
			name:        "nil-sector-with-oversell",
			in:          withoutSector(oversold().input(100, 100, 0)),
			wantStatus:  Invalid,
			wantSummary: "invalid: oversell (sold 103 of 100), double-sold (2 seats: 7, 42)",
		},
		{
			name:        "no-attempts",
			in:          new(race).input(100, 100, 100),
			wantStatus:  Unknown,
			wantSummary: "unknown: no attempts were recorded",
		},
		{
			name: "unrecognised-outcome",
			in: new(race).sold(1, 99).
				attempt("p9-g1", "timeout", 0).input(100, 100, 1),
			wantStatus:  Unknown,
			wantSummary: `unknown: 1 attempt has an unrecognised outcome: p9-g1 ("timeout")`,
		},
		{
			name: "ledger-unread-is-not-judged",
			in: new(race).sold(1, 3).refused(2, history.SoldOut).input(3, 3, 0).with(func(in *Input) {
				in.Sales, in.Sector = nil, nil
				in.LedgerUnread = "read ledger: dial tcp 127.0.0.1:5432: connect: connection refused"
				in.Outages = []history.Outage{{Server: history.ServerPostgreSQL, From: 1_300_000_000, Err: "EOF"}}
			}),
			wantStatus: Unknown,
			wantSummary: "unknown: postgresql became unreachable at +1.3s (EOF) and the ledger could not be read back " +
				"(read ledger: dial tcp 127.0.0.1:5432: connect: connection refused), so oversell, conservation, double-sold, missing-sale, phantom-sale and stuck-lock were not judged",
		},
		{
			name: "infrastructure-errors-are-not-the-strategys",
			in: new(race).sold(1, 3).refused(2, history.Error).input(4, 4, 1).with(func(in *Input) {
				for i := 3; i < 5; i++ {
					in.Attempts[i].Infra, in.Attempts[i].Err, in.Attempts[i].Complete = history.ServerRedis, "dial tcp: connection refused", 1_500_000_000
				}
			}),
			wantStatus:  Unknown,
			wantSummary: "unknown: redis became unreachable at +1.5s (dial tcp: connection refused): 2 attempts ended in an infrastructure error, so the strategy was not judged on them",
		},
		{
			name: "infrastructure-errors-under-a-fault-that-explains-them",
			in: new(race).sold(1, 3).refused(1, history.Error).input(3, 3, 0).with(func(in *Input) {
				in.Fault, in.Attempts[3].Infra = "partition", history.ServerPostgreSQL
			}),
			wantStatus:  Valid,
			wantSummary: "valid: 3/3 sold",
		},
		{
			name: "oversell-read-back-after-an-outage-stands",
			in: oversold().input(100, 100, 0).with(func(in *Input) {
				in.Outages = []history.Outage{{Server: history.ServerPostgreSQL, From: 1_300_000_000, To: 4_300_000_000, Err: "EOF"}}
			}),
			wantStatus:  Invalid,
			wantSummary: "invalid: oversell (sold 103 of 100), conservation (available 0 + 103 sale rows = 103, not the capacity 100), double-sold (2 seats: 7, 42)",
		},
		{
			name: "acknowledged-sales-a-restarted-postgresql-lost",
			in: new(race).sold(1, 9).attempt("p9-g1", history.Sold, 10).input(10, 10, 1).with(func(in *Input) {
				in.Attempts[9].Complete = 1_000_000_000
				in.Outages = []history.Outage{{Server: history.ServerPostgreSQL, From: 1_300_000_000, To: 4_300_000_000, Err: "EOF", Restarted: true}}
			}),
			wantStatus: Unknown,
			wantSummary: "unknown: postgresql restarted between +1.3s and +4.3s (EOF), and 1 attempt told it got a seat before that has no ledger row: " +
				"a server that restarts can lose commits it acknowledged, so missing-sale was not judged for it",
		},
		{
			name: "sales-acknowledged-after-the-restart-are-not-excused",
			in: new(race).sold(1, 9).attempt("p9-g1", history.Sold, 10).input(10, 10, 1).with(func(in *Input) {
				in.Attempts[9].Complete = 5_000_000_000
				in.Outages = []history.Outage{{Server: history.ServerPostgreSQL, From: 1_300_000_000, To: 4_300_000_000, Err: "EOF", Restarted: true}}
			}),
			wantStatus:  Invalid,
			wantSummary: "invalid: missing-sale (1 attempt was told it got a seat but has no ledger row)",
		},
		{
			name: "a-slow-health-check-excuses-no-missing-sale",
			in: new(race).sold(1, 9).attempt("p9-g1", history.Sold, 10).input(10, 10, 1).with(func(in *Input) {
				in.Outages = []history.Outage{{Server: history.ServerPostgreSQL, From: 1_300_000_000, To: 2_300_000_000, Err: "context deadline exceeded"}}
			}),
			wantStatus:  Invalid,
			wantSummary: "invalid: missing-sale (1 attempt was told it got a seat but has no ledger row)",
		},
		{
			// The lock-only holder of seat 1 paused past its TTL; the next
			// holder read the same count and sold the same seat.
			name: "lock-only-overlap",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 160, 165, 1).
				locked("p1-g3-a0", 1, 170, 175, 2).
				input(3, 3, 1).with(lockOnly).with(paused("p0-g1-a0", 11, 390)),
			wantStatus:  Invalid,
			wantSummary: "invalid: conservation (available 1 + 3 sale rows = 4, not the capacity 3), double-sold (1 seat: 1), mutual-exclusion (2 overlapping pairs of holders)",
		},
		{
			name: "lock-only-host-stall-is-not-judged",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 160, 165, 1).
				locked("p1-g3-a0", 1, 170, 175, 2).
				input(3, 3, 1).with(lockOnly),
			wantStatus: Unknown,
			wantSummary: "unknown: host stall of 240.0ms past a TTL of 150.0ms, not injected: p0-g1-a0 worked on after its lock expired and p1-g2-a0 took the lock at +160.0ms (and 1 more such overlap), " +
				"so oversell, conservation, double-sold and mutual-exclusion were not judged",
		},
		{
			name: "lock-only-host-stall-of-a-holder-slow-release-touched-is-not-judged",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 170, 175, 1).
				input(2, 2, 1).with(lockOnly).with(func(in *Input) {
				in.Fault = "slow-release"
				in.Faults = []history.FaultEvent{{Fault: "slow-release", RequestID: "p0-g1-a0", Start: 11_000_000, End: 86_000_000,
					Detail: "long critical section of 75ms injected with pg_sleep in its critical section"}}
			}),
			wantStatus: Unknown,
			wantSummary: "unknown: host stall of 240.0ms past a TTL of 150.0ms, not injected: p0-g1-a0 worked on after its lock expired and p1-g2-a0 took the lock at +170.0ms, " +
				"so oversell, conservation, double-sold and mutual-exclusion were not judged",
		},
		{
			name: "lock-only-heartbeat-that-failed-while-the-lock-lived-is-the-strategys",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 170, 175, 1).
				input(2, 2, 1).with(lockOnly).with(func(in *Input) {
				in.Extend, in.Attempts[0].ExtendFailed = true, 60_000_000
			}),
			wantStatus:  Invalid,
			wantSummary: "invalid: conservation (available 1 + 2 sale rows = 3, not the capacity 2), double-sold (1 seat: 1), mutual-exclusion (1 overlapping pair of holders)",
		},
		{
			name: "lock-only-heartbeat-that-stopped-with-its-process-is-a-stall",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 230, 235, 1).
				input(2, 2, 1).with(lockOnly).with(func(in *Input) {
				in.Extend, in.Attempts[0].Extended, in.Attempts[0].ExtendFailed = true, 60_000_000, 390_000_000
			}),
			wantStatus: Unknown,
			wantSummary: "unknown: host stall of 190.0ms past a TTL of 150.0ms, not injected: p0-g1-a0 worked on after its lock expired and p1-g2-a0 took the lock at +230.0ms, " +
				"so oversell, conservation, double-sold and mutual-exclusion were not judged",
		},
		{
			// The holder's SET was sent at +10ms and answered at +40ms: the
			// host stalled the answer 30 ms, twice the old round-trip
			// allowance (a tenth of the TTL). The lock lived only until
			// +160ms; the next holder at +165ms is the stall's.
			name: "lock-only-host-stall-with-a-late-stamp-is-not-judged",
			in: new(race).locked("p0-g1-a0", 0, 40, 400, 1).locked("p1-g2-a0", 1, 165, 170, 1).
				input(2, 2, 1).with(lockOnly).with(func(in *Input) { in.Attempts[0].LockSent = 10_000_000 }),
			wantStatus: Unknown,
			wantSummary: "unknown: host stall of 240.0ms past a TTL of 150.0ms, not injected: p0-g1-a0 worked on after its lock expired and p1-g2-a0 took the lock at +165.0ms, " +
				"so oversell, conservation, double-sold and mutual-exclusion were not judged",
		},
		{
			// The same late answer, but the next holder came at +155ms,
			// while the lock sent at +10ms still lived: the strategy's.
			name: "lock-only-overlap-within-the-ttl-from-the-send-is-the-strategys",
			in: new(race).locked("p0-g1-a0", 0, 40, 400, 1).locked("p1-g2-a0", 1, 155, 160, 1).
				input(2, 2, 1).with(lockOnly).with(func(in *Input) { in.Attempts[0].LockSent = 10_000_000 }),
			wantStatus:  Invalid,
			wantSummary: "invalid: conservation (available 1 + 2 sale rows = 3, not the capacity 2), double-sold (1 seat: 1), mutual-exclusion (1 overlapping pair of holders)",
		},
		{
			name: "lock-only-overlap-within-the-ttl-is-the-strategys",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 20, 25, 1).
				input(2, 2, 1).with(lockOnly),
			wantStatus:  Invalid,
			wantSummary: "invalid: conservation (available 1 + 2 sale rows = 3, not the capacity 2), double-sold (1 seat: 1), mutual-exclusion (1 overlapping pair of holders)",
		},
		{
			name: "lock-only-key-lost-by-a-restarted-redis-is-not-judged",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 60, 65, 1).
				input(2, 2, 1).with(lockOnly).with(func(in *Input) {
				in.Outages = []history.Outage{{Server: history.ServerRedis, From: 30_000_000, To: 50_000_000, Err: "EOF", Restarted: true}}
			}),
			wantStatus: Unknown,
			wantSummary: "unknown: redis restarted between +30.0ms and +50.0ms (EOF), not injected: the lock p0-g1-a0 held vanished and p1-g2-a0 took it at +60.0ms, " +
				"so oversell, conservation, double-sold and mutual-exclusion were not judged",
		},
		{
			name: "lock-only-a-slow-health-check-excuses-no-lost-lock",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 60, 65, 1).
				input(2, 2, 1).with(lockOnly).with(func(in *Input) {
				in.Outages = []history.Outage{{Server: history.ServerRedis, From: 30_000_000, To: 50_000_000, Err: "i/o timeout"}}
			}),
			wantStatus:  Invalid,
			wantSummary: "invalid: conservation (available 1 + 2 sale rows = 3, not the capacity 2), double-sold (1 seat: 1), mutual-exclusion (1 overlapping pair of holders)",
		},
		{
			name: "lock-only-network-fault-window-is-injected",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 160, 165, 2).
				input(2, 2, 0).with(lockOnly).with(func(in *Input) {
				in.Fault = "net-delay"
				in.Faults = []history.FaultEvent{{Fault: "net-delay", Proc: -1, Goroutine: -1, Start: 5_000_000, End: 455_000_000, Detail: "delayed"}}
			}),
			wantStatus:  Invalid,
			wantSummary: "invalid: mutual-exclusion (1 overlapping pair of holders)",
		},
		{
			name: "lock-plus-update-overlap-is-a-note",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 160, 165, 2).
				input(2, 2, 0).with(func(in *Input) { in.Mode, in.LockTTL = "lock-plus-update", 150_000_000 }),
			wantStatus:  Valid,
			wantSummary: "valid: 2/2 sold",
		},
		{
			name:        "unexpected-error",
			in:          new(race).sold(1, 9).refused(1, history.Error).input(10, 10, 1),
			wantStatus:  Invalid,
			wantSummary: "invalid: unexpected-error (1 attempt failed with an error in a run without faults)",
		},
		{
			name:        "stuck-lock",
			in:          new(race).sold(1, 4).refused(6, history.LockTimeout).input(10, 10, 6),
			wantStatus:  Invalid,
			wantSummary: "invalid: stuck-lock (6 contenders gave up waiting for the lock while 6 of 10 seats were still unsold (a lock that never expired, or a --lock-wait too short for the queue))",
		},
		{
			name:        "stuck-lock-of-a-library",
			in:          new(race).sold(1, 4).refused(6, history.LockTimeout).input(10, 10, 6).with(func(in *Input) { in.Lock = "redsync" }),
			wantStatus:  Invalid,
			wantSummary: "invalid: stuck-lock (6 contenders gave up waiting for the lock while 6 of 10 seats were still unsold (a lock that never expired, or redsync's own retry budget, or a --lock-wait, too short for the queue))",
		},
		{
			name:        "stuck-lock-behind-an-unmet-fault",
			in:          new(race).sold(1, 4).refused(6, history.LockTimeout).input(10, 10, 6).with(unmet),
			wantStatus:  Unknown,
			wantSummary: "unknown: fault lock-loss struck p0-g1, but nobody took the lock before the old holder went on: the overlap it makes never happened, so the run cannot show what lock-loss does to the strategy (worth a retry); 6 contenders that gave up on the lock while it held its holder back are not counted as a stuck lock",
		},
		{
			name: "stuck-lock-after-an-unmet-fault",
			in: new(race).sold(1, 4).refused(6, history.LockTimeout).input(10, 10, 6).with(unmet).with(func(in *Input) {
				for i := range in.Attempts[4:] { // the six that gave up, after the fault
					in.Attempts[4+i].Invoke, in.Attempts[4+i].Complete = 4e9, 9e9
				}
			}),
			wantStatus:  Invalid,
			wantSummary: "invalid: stuck-lock (6 contenders gave up waiting for the lock while 6 of 10 seats were still unsold (a lock that never expired, or a --lock-wait too short for the queue))",
		},
		{
			name:        "oversell-behind-an-unmet-fault",
			in:          oversold().input(100, 100, 0).with(unmet),
			wantStatus:  Invalid,
			wantSummary: "invalid: oversell (sold 103 of 100), conservation (available 0 + 103 sale rows = 103, not the capacity 100), double-sold (2 seats: 7, 42)",
		},
		{
			name: "duplicate-copies-are-one-request",
			in: new(race).sold(1, 2).attempt("p0-g0", history.Rejected, 0).
				input(2, 2, 0).with(func(in *Input) { in.Attempts[2].Try = 1; in.Fault = "duplicate" }),
			wantStatus:  Valid,
			wantSummary: "valid: 2/2 sold",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(tt.in)
			if got.Status != tt.wantStatus {
				t.Errorf("Check().Status = %q, want %q", got.Status, tt.wantStatus)
			}
			if s := got.Summary(); s != tt.wantSummary {
				t.Errorf("Check().Summary() = %q, want %q", s, tt.wantSummary)
			}
			if got.Status != Unknown && len(got.Undetermined) > 0 {
				t.Errorf("Check().Undetermined = %q on a %s verdict, want none", got.Undetermined, got.Status)
			}
			golden(t, tt.name, got)
			// Porcupine must agree on every hand-made history it can judge.
			twice, _ := CheckTwice(tt.in, linearize.DefaultTimeout)
			if c := twice.Checkers; c.Agreement == Disagree {
				t.Errorf("the checkers disagree: %s", c.Why)
			} else {
				t.Logf("porcupine %s, %s %s", c.Porcupine, c.Agreement, c.Why)
			}
		})
	}
}

func TestCheckIsDeterministic(t *testing.T) {
	in := incomplete(oversold().row("ghost", 3).input(100, 100, 0), "worker 1 died")
	want, err := json.Marshal(Check(in))
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	for i := range 20 {
		got, err := json.Marshal(Check(in))
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("run %d: Check() = %s, want %s", i, got, want)
		}
	}
}

// unmet records a lock-loss that struck p0-g1 but whose timeline did not
// happen: nobody took the lock before the holder went on, which it held
// back for the first 3 s of the run.
func unmet(in *Input) {
	in.Fault = "lock-loss"
	in.Faults = append(in.Faults, history.FaultEvent{Fault: "lock-loss", RequestID: "p0-g1", Start: 0, End: 3e9,
		Detail: "the lock key was deleted while p0-g1 held it; nobody took the lock before the old holder went on",
		Unmet:  "nobody took the lock before the old holder went on"})
}
