package bench

import (
	"strings"
	"testing"
)

// summaryToday is the shape of a summary.json hammer writes now (cut):
// no peak_in_flight, no handoff phase.
const summaryToday = `{"schema":"hammer.summary/v1","runs":[{"mode":"lock-plus-update","contenders":1000,"seats":100,
"sold":100,"oversold":0,"verdict":"valid","start_skew_ms":2.5,"elapsed_ms":812.25,"sellout_ms":301.5,
"latency":[{"phase":"lock_wait","count":1000,"p50_ms":200},{"phase":"critical","count":1000,"p50_ms":1.25}]}],"exit_code":0}`

// summaryLater has the fields other branches add.
const summaryLater = `{"runs":[{"mode":"lock-plus-update","sold":100,"seats":100,"verdict":"valid","elapsed_ms":400,
"start_skew_ms":0.8,"peak_in_flight":1000,"realtime_workers":4,"latency":[{"phase":"handoff","count":99,"p50_ms":0.21}]}]}`

func TestParseSummary(t *testing.T) {
	today, err := ParseSummary([]byte(summaryToday))
	if err != nil {
		t.Fatal(err)
	}
	if got := Optional(today.ElapsedMs); got != Known(812.25) {
		t.Errorf("elapsed = %v, want 812.25", got)
	}
	if got := Optional(today.PeakInFlight); got != NA() {
		t.Errorf("peak_in_flight = %v, want n/a before hammer writes it", got)
	}
	if got := Optional(today.RealtimeWorkers); got != NA() {
		t.Errorf("realtime_workers = %v, want n/a before hammer writes it", got)
	}
	if got := today.PhaseP50("handoff"); got != NA() {
		t.Errorf("handoff p50 = %v, want n/a before hammer writes it", got)
	}
	if got := today.PhaseP50("critical"); got != Known(1.25) {
		t.Errorf("critical p50 = %v, want 1.25", got)
	}
	later, err := ParseSummary([]byte(summaryLater))
	if err != nil {
		t.Fatal(err)
	}
	if got := Optional(later.PeakInFlight); got != Known(1000) {
		t.Errorf("peak_in_flight = %v, want 1000", got)
	}
	if got := Optional(later.RealtimeWorkers); got != Known(4) {
		t.Errorf("realtime_workers = %v, want 4", got)
	}
	if got := later.PhaseP50("handoff"); got != Known(0.21) {
		t.Errorf("handoff p50 = %v, want 0.21", got)
	}
}

func TestParseSummaryRejects(t *testing.T) {
	for _, in := range []string{`{"runs":[]}`, `{"runs":[{},{}]}`, `not json`} {
		if _, err := ParseSummary([]byte(in)); err == nil {
			t.Errorf("ParseSummary(%s) = nil error, want one", in)
		}
	}
}

func TestCheck(t *testing.T) {
	elapsed := 10.0
	tests := []struct {
		name string
		run  RunFigures
		ok   bool
	}{
		{name: "valid, all sold", run: RunFigures{Verdict: "valid", Sold: 100, ElapsedMs: &elapsed}, ok: true},
		{name: "fast but oversold", run: RunFigures{Verdict: "invalid", Sold: 101, Oversold: 1, ElapsedMs: &elapsed}},
		{name: "valid but short of seats", run: RunFigures{Verdict: "valid", Sold: 99, ElapsedMs: &elapsed}},
		{name: "unknown", run: RunFigures{Verdict: "unknown", Sold: 100, ElapsedMs: &elapsed}},
		{name: "no elapsed", run: RunFigures{Verdict: "valid", Sold: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run.Check(100); (err == nil) != tt.ok {
				t.Errorf("Check = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestParsers(t *testing.T) {
	stats := ParseCommandStats("# Commandstats\r\ncmdstat_set:calls=120,usec=300,usec_per_call=2.5\r\ncmdstat_evalsha:calls=7,usec=1\r\nused_memory:5\r\n")
	if stats["set"] != 120 || stats["evalsha"] != 7 || len(stats) != 2 {
		t.Errorf("ParseCommandStats = %v, want set 120, evalsha 7", stats)
	}
	if hwm, ok := parseHWM([]byte("Name:\thammer\nVmPeak:\t  9000 kB\nVmHWM:\t    2048 kB\n")); !ok || hwm != 2<<20 {
		t.Errorf("parseHWM = %d %v, want 2 MiB", hwm, ok)
	}
	tps, err := parsePgbenchTPS("latency average = 13.1 ms\ninitial connection time = 20.0 ms\ntps = 1203.5 (without initial connection time)\n")
	if err != nil || tps != 1203.5 {
		t.Errorf("parsePgbenchTPS = %v %v, want 1203.5", tps, err)
	}
	rps, err := parseRedisBenchCSV(`"test","rps","avg_latency_ms"` + "\n" + `"SET k t NX PX 10000","17618.00","2.7"` + "\n")
	if err != nil || rps != 17618 {
		t.Errorf("parseRedisBenchCSV = %v %v, want 17618", rps, err)
	}
	if _, err := parseRedisBenchCSV("ERROR: connection refused\n"); err == nil || !strings.Contains(err.Error(), "rps") {
		t.Errorf("parseRedisBenchCSV of an error = %v, want a complaint", err)
	}
}
