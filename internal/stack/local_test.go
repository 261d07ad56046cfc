package stack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// requireLocalBins skips the test when the server binaries are missing,
// or fails it when HAMMER_REQUIRE_SERVICES=1 (as CI sets).
func requireLocalBins(t *testing.T) {
	t.Helper()
	if _, err := findLocalBins(); err != nil {
		if os.Getenv("HAMMER_REQUIRE_SERVICES") == "1" {
			t.Fatalf("HAMMER_REQUIRE_SERVICES=1 but: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// testLog collects a stack's progress lines into the test log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// shProc starts script under /bin/sh as a server process named name,
// logging to a file in a temporary directory.
func shProc(t *testing.T, name, script string) *proc {
	t.Helper()
	dir := t.TempDir()
	p, err := startProc(procSpec{
		name: name, path: "/bin/sh", args: []string{"-c", script},
		dir: dir, logPath: filepath.Join(dir, name+".log"), deathSig: syscall.SIGKILL,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProcEarlyExit(t *testing.T) {
	tests := []struct {
		name        string
		script      string
		wantInMsg   []string
		wantPortErr bool
	}{
		{
			name:      "crash quotes log",
			script:    "echo starting; echo boom >&2; exit 3",
			wantInMsg: []string{"exited before it was ready", "exit status 3", "starting | boom"},
		},
		{
			name:        "port in use",
			script:      "echo 'bind: Address already in use' >&2; exit 1",
			wantInMsg:   []string{"Address already in use"},
			wantPortErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := shProc(t, "fake-server", tt.script)
			never := func(context.Context) error { return errors.New("not yet") }
			err := await(context.Background(), p, 0, never)
			t.Log(err)
			if err == nil || strings.Contains(err.Error(), "\n") {
				t.Fatalf("await() = %v, want a one-line error", err)
			}
			for _, frag := range tt.wantInMsg {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("error %q, want it to contain %q", err, frag)
				}
			}
			if got := errors.Is(err, errPortInUse); got != tt.wantPortErr {
				t.Errorf("errors.Is(err, errPortInUse) = %v, want %v", got, tt.wantPortErr)
			}
		})
	}
}

func TestProcStopKillsLingerer(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (1.7s in a -short run): skipped by -short (make test runs it)")
	}
	t.Parallel()
	p := shProc(t, "stubborn", "trap '' TERM; sleep 60 & wait")
	time.Sleep(100 * time.Millisecond) // let the shell set its trap
	begin := time.Now()
	if err := p.stop(200*time.Millisecond, syscall.SIGTERM); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("stop took %s, want about the 200ms grace", took)
	}
	if err := waitGone(-p.pid()); err != nil {
		t.Errorf("process group %d: %v", p.pid(), err)
	}
}

// localSnapshot is what a test needs to check that Close left nothing.
type localSnapshot struct {
	dir               string
	redisPort, pgPort int
	pids              []int
}

func snapshot(s *Stack) localSnapshot {
	l := s.local
	return localSnapshot{dir: l.dir, redisPort: l.redisPort, pgPort: l.pgPort, pids: []int{l.redis.pid(), l.pg.pid()}}
}

func TestLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (8.1s in a -short run): skipped by -short (make test runs it)")
	}
	t.Parallel()
	requireLocalBins(t)
	ctx := context.Background()
	begin := time.Now()
	s, err := Start(ctx, Options{Kind: Local, Log: testLog{t}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("local Start took %s; redis %s, postgres %s", time.Since(begin).Round(time.Millisecond), s.RedisURL, s.PGURL)
	t.Cleanup(func() { _ = s.Close() })
	snap := snapshot(s)
	if pids := procsIn(snap.dir); len(pids) < 3 {
		t.Errorf("processes in %s = %v, want redis-server, postgres and its children", snap.dir, pids)
	}

	if s.Kind != Local || len(s.Notes) != 1 || s.Notes[0] != localNote {
		t.Errorf("Kind %q, Notes %q; want %q, [%q]", s.Kind, s.Notes, Local, localNote)
	}
	checkPG(t, s.PGURL)
	checkPGRunsUnprivileged(t, snap.pids[1])
	t.Run("external on top", func(t *testing.T) { testExternal(t, s) })
	t.Run("restart redis", func(t *testing.T) { testRestartRedis(t, s) })

	begin = time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("Close took %s", time.Since(begin).Round(time.Millisecond))
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	checkGone(t, snapshot(s), snap)
	if err := s.RestartRedis(ctx); err == nil {
		t.Errorf("RestartRedis after Close = nil, want an error")
	}
}

// checkPG checks the database the URL names and the settings Start chose.
func checkPG(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	defer conn.Close(ctx)
	var one int
	var db, user, fsync, maxConns string
	row := conn.QueryRow(ctx, "SELECT 1, current_database(), current_user, current_setting('fsync'), current_setting('max_connections')")
	if err := row.Scan(&one, &db, &user, &fsync, &maxConns); err != nil {
		t.Fatalf("SELECT 1: %v", err)
	}
	got := fmt.Sprint(one, db, user, fsync, maxConns)
	if want := fmt.Sprint(1, pgDatabase, pgUser, "off", 400); got != want {
		t.Errorf("1, database, user, fsync, max_connections = %s, want %s", got, want)
	}
}

// checkPGRunsUnprivileged checks that postgres is not root when hammer is.
func checkPGRunsUnprivileged(t *testing.T, pid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if fields := strings.Fields(line); len(fields) > 1 && fields[0] == "Uid:" && fields[1] == "0" {
			t.Errorf("postgres (pid %d) runs as root", pid)
		}
	}
}

// testExternal starts External stacks on the local servers.
func testExternal(t *testing.T, local *Stack) {
	ctx := context.Background()
	s, err := Start(ctx, Options{RedisURL: local.RedisURL, PGURL: local.PGURL})
	if err != nil {
		t.Fatalf("Start external: %v", err)
	}
	if s.Kind != External || len(s.Notes) != 0 {
		t.Errorf("Kind %q, Notes %q; want %q, none", s.Kind, s.Notes, External)
	}
	if err := s.RestartRedis(ctx); !errors.Is(err, ErrUnsupported) {
		t.Errorf("RestartRedis of external = %v, want ErrUnsupported", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close external: %v", err)
	}
	checkPG(t, local.PGURL) // Close left the servers alone

	silent := silentPort(t)
	tests := []struct {
		name  string
		pgURL string
	}{
		{name: "postgres refuses", pgURL: "postgres://hammer:s3cret@" + loopback(closedPort(t)) + "/hammer"},
		{name: "postgres silent", pgURL: "postgres://hammer:s3cret@" + loopback(silent) + "/hammer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			begin := time.Now()
			_, err := Start(ctx, Options{Kind: External, RedisURL: local.RedisURL, PGURL: tt.pgURL})
			t.Logf("after %s: %v", time.Since(begin).Round(time.Millisecond), err)
			if took := time.Since(begin); took > 10*time.Second {
				t.Errorf("Start took %s, want < 10s", took)
			}
			checkOneSentinel(t, err, ErrUnavailable, "s3cret")
			if !strings.Contains(err.Error(), "postgresql at 127.0.0.1:") {
				t.Errorf("error %q does not name the PostgreSQL address", err)
			}
		})
	}
}

// testRestartRedis checks that a restart loses keys and keeps the port.
func testRestartRedis(t *testing.T, s *Stack) {
	ctx := context.Background()
	opts, err := redis.ParseURL(s.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	if err := c.Set(ctx, "hammer:stack-test", "before", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	oldURL, oldPid := s.RedisURL, s.local.redis.pid()
	begin := time.Now()
	if err := s.RestartRedis(ctx); err != nil {
		t.Fatalf("RestartRedis: %v", err)
	}
	t.Logf("RestartRedis took %s", time.Since(begin).Round(time.Millisecond))
	if s.RedisURL != oldURL || s.local.redis.pid() == oldPid {
		t.Errorf("after restart: URL %s pid %d, want URL %s and a pid other than %d", s.RedisURL, s.local.redis.pid(), oldURL, oldPid)
	}
	if err := syscall.Kill(oldPid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("old redis-server pid %d still exists (kill 0: %v)", oldPid, err)
	}
	got, err := c.Get(ctx, "hammer:stack-test").Result()
	if !errors.Is(err, redis.Nil) {
		t.Errorf("GET after restart = %q, %v; want redis.Nil (key lost)", got, err)
	}
}

// waitGone waits up to 5s for kill(pid, 0) to fail with ESRCH: for the
// process, or with a negative pid for every member of the process group.
// (An orphan killed with its group lingers as a zombie until init reaps it.)
func waitGone(pid int) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still exists 5s later (kill 0: %v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procsIn returns the pids of live processes whose working directory is
// dir or below it, even after dir was deleted. Redis and every PostgreSQL
// process of a Local stack work in its temp dir, so this finds all of them,
// PostgreSQL backends included (which lead their own process groups).
func procsIn(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil {
			continue // gone, a zombie, or not ours to see
		}
		cwd = strings.TrimSuffix(cwd, " (deleted)")
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitNoProcsIn waits up to 5s for procsIn(dir) to be empty.
func waitNoProcsIn(dir string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := procsIn(dir)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v still work in %s", pids, dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkGone checks that nothing of the closed stack remains.
func checkGone(t *testing.T, after, before localSnapshot) {
	t.Helper()
	if _, err := os.Stat(before.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s still exists (stat: %v)", before.dir, err)
	}
	if err := waitNoProcsIn(before.dir); err != nil {
		t.Error(err)
	}
	pids := append(before.pids, after.pids...)
	for _, pid := range pids {
		if err := waitGone(pid); err != nil {
			t.Errorf("pid %d: %v", pid, err)
		}
		if err := waitGone(-pid); err != nil {
			t.Errorf("process group %d: %v", pid, err)
		}
	}
	for _, port := range []int{before.redisPort, before.pgPort} {
		if port == 0 {
			continue
		}
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			conn.Close()
			t.Errorf("port %d still accepts connections", port)
		}
	}
}

// TestServersDieWithHammer kills (SIGKILL) a process that started a Local
// stack and checks that the servers die with it (Pdeathsig).
func TestServersDieWithHammer(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (10.1s in a -short run): skipped by -short (make test runs it)")
	}
	t.Parallel()
	requireLocalBins(t)
	c := startChild(t)
	if err := c.kill(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{c.redisPid, -c.redisPid, c.pgPid, -c.pgPid} {
		if err := waitGone(pid); err != nil {
			t.Errorf("pid %d after hammer was killed: %v", pid, err)
		}
	}
	if err := waitNoProcsIn(c.dir); err != nil {
		t.Errorf("after hammer was killed: %v", err)
	}
}

// TestLocalStartFailureCleansUp breaks postgres and checks that Start
// reports it and leaves no redis-server and no temp dir behind.
func TestLocalStartFailureCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (1.7s in a -short run): skipped by -short (make test runs it)")
	}
	t.Parallel()
	requireLocalBins(t)
	bins, _ := findLocalBins()
	var err error
	if bins.postgres, err = exec.LookPath("false"); err != nil {
		t.Skip("no false(1) to stand in for a broken postgres")
	}
	var log strings.Builder
	_, err = startLocalBins(context.Background(), Options{Kind: Local, Log: &log}, bins)
	t.Log(err)
	checkOneSentinel(t, err, ErrUnavailable, "")
	if !strings.Contains(err.Error(), "postgres exited before it was ready") {
		t.Errorf("error %q does not say postgres exited", err)
	}
	var redisPort int
	var pgData string
	for _, line := range strings.Split(log.String(), "\n") {
		fmt.Sscanf(line, "starting local redis-server on 127.0.0.1:%d", &redisPort)
		fmt.Sscanf(line, "creating a PostgreSQL cluster in %s", &pgData)
	}
	if redisPort == 0 || pgData == "" {
		t.Fatalf("progress log lacks the redis port or the data dir:\n%s", log.String())
	}
	checkGone(t, localSnapshot{}, localSnapshot{dir: filepath.Dir(pgData), redisPort: redisPort})
}
