package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/report"
)

// TestAgentsService: agents on the coordinator's own host race a
// service's replicas at their loopback URLs, nothing relayed, and a
// correct variant comes out valid with every seat sold.
func TestAgentsService(t *testing.T) {
	if testing.Short() {
		t.Skip("starts replicas and agents: skipped by -short (make test runs it)")
	}
	t.Parallel() // processes and sockets of its own; the shared stack by run id
	buildTicketd(t)
	path := ticketdFile(t, func(s string) string { return s })
	dir := filepath.Join(t.TempDir(), "out")
	args := append([]string{"run", "--target", path, "--variant", "lock-plus-update", "--replicas", "2", "--agents", "2",
		"--listen", "127.0.0.1:0", "--goroutines", "20", "--seats", "20", "--quiet", "--out", dir}, stackArgs(t)...)
	coord := startProc(t, testToken, args...)
	addr := coord.await(t, waitingRe, time.Minute)[1]
	agents := []*proc{startProc(t, testToken, "agent", "--join", addr), startProc(t, testToken, "agent", "--join", addr)}
	if code := coord.wait(t, 2*time.Minute); code != exitOK {
		t.Fatalf("coordinator exit %d, want 0; stderr:\n%s", code, coord.stderr())
	}
	for i, a := range agents {
		if code := a.wait(t, 5*time.Second); code != exitOK {
			t.Errorf("agent %d exit %d, want 0; stderr:\n%s", i, code, a.stderr())
		}
	}
	r := readSummary(t, dir).Runs[0]
	if r.Verdict != "valid" || r.Sold != 20 || len(r.Agents) != 2 {
		t.Fatalf("verdict %s, sold %d, %d agents; want valid, 20, 2", r.Verdict, r.Sold, len(r.Agents))
	}
	checkReplicas(t, dir, regexp.MustCompile(`^r[01] 127\.0\.0\.1:\d+$`))
}

// TestMultiHostService races the Go example service from agents on other
// hosts: the coordinator, Redis, PostgreSQL and the replicas in one
// network namespace, two agents in two others, one of them joining
// through a proxy on its own loopback. The replicas listen on the
// coordinator's loopback only; the agents must reach them through the
// relays on the --listen address (as the agents reached the coordinator,
// never as they dialled it: the proxied agent dialled 127.0.0.1). The
// verdicts must be those of the same gate raced by local workers: naive
// caught overselling, lock-plus-update valid.
func TestMultiHostService(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: skipped by -short (make test runs it)")
	}
	t.Parallel() // namespaces, servers and processes of its own
	n := newNetns(t, 2)
	redisURL, pgURL := startServers(t, n)
	buildTicketd(t)
	// 200 contenders queue for ticketd's lock under net-delay on a host
	// the rest of the suite keeps busy. With the example's 8 s lock wait
	// the local gate's net-delay cell sold only 65 and 87 of 100 seats
	// (invalid) in two CI runs, most likely waiters that gave up
	// (stuck-lock). This test compares agents with local workers, not
	// lock waits, so it waits longer.
	path := ticketdFile(t, func(s string) string {
		for _, r := range [][2]string{{`LOCK_WAIT_MS: "8000"`, `LOCK_WAIT_MS: "25000"`}, {"  timeout: 10s\n", "  timeout: 30s\n"}} {
			if strings.Count(s, r[0]) != 1 {
				t.Fatalf("examples/ticketd/target.yaml has %q %d times, want once", r[0], strings.Count(s, r[0]))
			}
			s = strings.Replace(s, r[0], r[1], 1)
		}
		return s
	})
	// Faults that act on the replicas or on their way to the servers act
	// on the coordinator's host, as without agents.
	// lock-only under pause-stop is left out: whether a pause catches a
	// holder inside the sale depends on the host's load, and the local
	// gate itself missed it once in a busy suite (TestFixedKeyService
	// races that fault; here a pause must still stop a replica).
	const cells = "naive none unsafe\nlock-plus-update none safe\nlock-plus-update pause-stop safe\nlock-plus-update net-delay safe\n"
	matrix := filepath.Join(t.TempDir(), "service.matrix")
	if err := os.WriteFile(matrix, []byte(cells), 0o644); err != nil {
		t.Fatal(err)
	}
	race := func(dir string, extra ...string) []string {
		return append([]string{"gate", "--target", path, "--matrix", matrix, "--replicas", "2", "--goroutines", "100",
			"--seats", "100", "--quiet", "--stack", "external", "--redis-url", redisURL, "--pg-url", pgURL, "--out", dir}, extra...)
	}

	// The same gate on local workers, in the coordinator's namespace.
	localDir := filepath.Join(t.TempDir(), "local")
	local := startIn(t, n.coord, nil, race(localDir, "--procs", "2")...)
	if code := local.wait(t, 3*time.Minute); code != exitOK {
		t.Fatalf("local gate exit %d, want 0; verdicts %s; stderr:\n%s", code, verdictsIn(localDir), local.stderr())
	}

	dir := filepath.Join(t.TempDir(), "agents")
	listen := n.coordIP() + ":7070"
	coord := startIn(t, n.coord, nil, race(dir, "--agents", "2", "--listen", listen)...)
	coord.await(t, waitingRe, time.Minute)
	proxy := startIn(t, n.agents[1], []string{envTestProxy + "=127.0.0.1:17070 " + listen + " 2ms 0ms"})
	proxy.await(t, regexp.MustCompile(`proxy: listening`), 30*time.Second)
	agents := []*proc{
		startIn(t, n.agents[0], nil, "agent", "--join", listen, "--index", "0"),
		startIn(t, n.agents[1], nil, "agent", "--join", "127.0.0.1:17070", "--index", "1"),
	}
	code := coord.wait(t, 3*time.Minute)
	for i, a := range agents {
		if code := a.wait(t, 5*time.Second); code != exitOK {
			t.Errorf("agent %d exit %d, want 0; stderr:\n%s", i, code, a.stderr())
		}
	}
	if code != exitOK {
		t.Fatalf("coordinator exit %d, want 0; stderr:\n%s", code, coord.stderr())
	}

	want := map[string]string{}
	for _, r := range readSummary(t, localDir).Runs {
		want[r.Name] = string(r.Verdict)
	}
	if want["naive"] != "invalid" || want["lock-plus-update"] != "valid" || want["lock-plus-update/pause-stop"] != "valid" || want["lock-plus-update/net-delay"] != "valid" {
		t.Fatalf("local workers: verdicts %v, want naive invalid, lock-plus-update valid under every fault", want)
	}
	runs := readSummary(t, dir).Runs
	if len(runs) != len(want) {
		t.Fatalf("%d runs on agents, want %d", len(runs), len(want))
	}
	for _, r := range runs {
		if string(r.Verdict) != want[r.Name] || len(r.Agents) != 2 {
			t.Errorf("%s on agents: verdict %s on %d agents, want %s (as on local workers) on 2", r.Name, r.Verdict, len(r.Agents), want[r.Name])
		}
		t.Logf("%s: %s, sold %d of %d, start skew %.3f ms", r.Name, r.Verdict, r.Sold, r.Seats, r.StartSkewMs)
	}
	if fs := faultsOf(dir); !strings.Contains(fs, "SIGSTOP of replica") {
		t.Errorf("pause-stop on agents did not stop a replica on the coordinator's host; faults:\n%s", fs)
	}
	// Every attempt came from an agent and went to a replica through its
	// relay on the coordinator's address.
	checkReplicas(t, dir, regexp.MustCompile(`^r[01] `+regexp.QuoteMeta(n.coordIP())+`:\d+$`))
}

// checkReplicas checks that every attempt of the results folder dir went
// to a replica named as want says, and that the two agents' workers made
// as many attempts each.
func checkReplicas(t *testing.T, dir string, want *regexp.Regexp) {
	t.Helper()
	procs := map[int]int{}
	f, err := os.Open(filepath.Join(dir, folder.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		var a struct {
			Proc    int    `json:"proc"`
			Replica string `json:"replica"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		procs[a.Proc]++
		if !want.MatchString(a.Replica) {
			t.Fatalf("an attempt went to replica %q, want %s", a.Replica, want)
		}
	}
	if len(procs) != 2 || procs[0] != procs[1] {
		t.Errorf("attempts per agent %v, want the same number from each of 2", procs)
	}
}

// verdictsIn lists the verdict of every run of the results folder dir, or
// why it could not be read, for a failure's message.
func verdictsIn(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return err.Error()
	}
	var s report.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return err.Error()
	}
	var out []string
	for _, r := range s.Runs {
		line := fmt.Sprintf("%s %s %d/%d", r.Name, r.Verdict, r.Sold, r.Seats)
		for _, v := range r.Violations {
			line += fmt.Sprintf(" [%s: %s]", v.Check, v.Detail)
		}
		out = append(out, line)
	}
	return strings.Join(out, ", ")
}
