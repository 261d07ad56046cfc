package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hammer-load/hammer/folder"
)

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
	path := ticketdFile(t, func(s string) string { return s })
	matrix := filepath.Join(t.TempDir(), "service.matrix")
	if err := os.WriteFile(matrix, []byte("naive none unsafe\nlock-plus-update none safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	race := func(dir string, extra ...string) []string {
		return append([]string{"gate", "--target", path, "--matrix", matrix, "--replicas", "2", "--goroutines", "50",
			"--seats", "20", "--quiet", "--stack", "external", "--redis-url", redisURL, "--pg-url", pgURL, "--out", dir}, extra...)
	}

	// The same gate on local workers, in the coordinator's namespace.
	localDir := filepath.Join(t.TempDir(), "local")
	local := startIn(t, n.coord, nil, race(localDir, "--procs", "2")...)
	if code := local.wait(t, 3*time.Minute); code != exitOK {
		t.Fatalf("local gate exit %d, want 0; stderr:\n%s", code, local.stderr())
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
	if want["naive"] != "invalid" || want["lock-plus-update"] != "valid" {
		t.Fatalf("local workers: verdicts %v, want naive invalid and lock-plus-update valid", want)
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
	// Every attempt came from an agent and went to a replica through its
	// relay on the coordinator's address.
	relayed := regexp.MustCompile(`^r[01] ` + regexp.QuoteMeta(n.coordIP()) + `:\d+$`)
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
		if !relayed.MatchString(a.Replica) {
			t.Fatalf("an attempt went to replica %q, want one relayed on %s (%s)", a.Replica, n.coordIP(), relayed)
		}
	}
	if len(procs) != 2 || procs[0] != procs[1] {
		t.Errorf("attempts per agent %v, want the same number from each of 2", procs)
	}
}
