package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// serviceArgs are the sizes of a race against an example service: small,
// so that every variant and fault runs in a second or two.
func serviceArgs(t *testing.T, dir string) []string {
	t.Helper()
	return append([]string{"--procs", "2", "--goroutines", "50", "--seats", "20", "--quiet", "--out", dir}, stackArgs(t)...)
}

// examplesReady fails the test when the Node and TypeScript examples'
// packages are missing (`make examples`, run by .ci/run, installs them) or
// PHP cannot run ticketd-php (`make test-tools` installs it).
func examplesReady(t *testing.T) {
	t.Helper()
	for _, dir := range []string{"ticketd-node/node_modules/pg", "ticketd-ts/node_modules/ioredis", "ticketd-ts/node_modules/.bin/tsc"} {
		if _, err := os.Stat("../../examples/" + dir); err != nil {
			t.Fatalf("examples/%s is missing: run `make examples` first (%v)", dir, err)
		}
	}
	php := exec.Command("php", "-r", `exit(extension_loaded("pdo_pgsql") && extension_loaded("pcntl") && stream_resolve_include_path("Predis/autoload.php") ? 0 : 1);`)
	if out, err := php.CombinedOutput(); err != nil {
		t.Fatalf("examples/ticketd-php needs php-cli with pdo_pgsql and pcntl, and Predis: run `make test-tools` "+
			"(apt-get install php-cli php-pgsql php-nrk-predis) (%v %s)", err, out)
	}
}

// TestServiceVerdicts races the example services, Go, Node, TypeScript and
// PHP, as a user would: the naive variant is caught overselling (exit 1),
// the lock plus the atomic update sells exactly the seats (exit 0), also
// when the replica holding the lock is killed in its transaction.
func TestServiceVerdicts(t *testing.T) {
	stacktest.Get(t) // first: skips under -short, before the examples are looked for
	examplesReady(t)
	tests := []struct {
		name, target, variant, fault string
		wantCode                     int
		wantVerdict                  string
		extra                        []string
	}{
		{"go naive oversells", "ticketd", "naive", "none", exitFail, "invalid", nil},
		{"go lock-plus-update", "ticketd", "lock-plus-update", "none", exitOK, "valid", nil},
		// A sale long enough for the crash to find a replica inside one
		// while the coordinator runs under the race detector.
		{"go lock-plus-update under crash", "ticketd", "lock-plus-update", "crash", exitOK, "valid",
			[]string{"--goroutines", "100", "--seats", "100"}},
		{"node naive oversells", "ticketd-node", "naive", "none", exitFail, "invalid", nil},
		{"node lock-plus-update", "ticketd-node", "lock-plus-update", "none", exitOK, "valid", nil},
		{"ts naive oversells", "ticketd-ts", "naive", "none", exitFail, "invalid", nil},
		{"ts lock-plus-update", "ticketd-ts", "lock-plus-update", "none", exitOK, "valid", nil},
		{"php naive oversells", "ticketd-php", "naive", "none", exitFail, "invalid", nil},
		{"php lock-plus-update", "ticketd-php", "lock-plus-update", "none", exitOK, "valid", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each race has its own schema, keys and replicas
			var dir string
			var code int
			var stdout, stderr string
			// A fault that found no replica inside a sale is the world's
			// doing (exit 3, "struck 0 of"), which CI retries: so does this.
			for try := 0; try < 2; try++ {
				dir = filepath.Join(t.TempDir(), "out")
				args := append([]string{"run", "--target", "../../examples/" + tt.target + "/target.yaml",
					"--variant", tt.variant, "--fault", tt.fault}, append(serviceArgs(t, dir), tt.extra...)...)
				code, stdout, stderr = hammer(t, args...)
				if code != exitInfra || !strings.Contains(stdout, "struck 0 of") {
					break
				}
			}
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			run := readSummary(t, dir).Runs[0]
			if string(run.Verdict) != tt.wantVerdict {
				t.Errorf("verdict %s, want %s", run.Verdict, tt.wantVerdict)
			}
			// A sold-out answer comes from an UPDATE that found no seat
			// left: every seat must then be in the ledger. (Without one,
			// fewer sales are right: beside busy loops the service's lock
			// wait ran out for 50 of 200 and a crash left 67 unanswered.)
			if tt.wantCode == exitOK && run.Outcomes["sold_out"] > 0 && run.Sold != run.Seats {
				t.Errorf("sold %d of %d seats, yet some were told sold out; outcomes %v\nfaults: %s\nstdout: %s", run.Sold, run.Seats, run.Outcomes, faultsOf(dir), stdout)
			}
			if tt.wantCode == exitOK && run.Sold == 0 {
				t.Errorf("sold nothing; outcomes %v\nstdout: %s", run.Outcomes, stdout)
			}
		})
	}
}

// faultsOf returns the fault records of the run written to dir, as written.
func faultsOf(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, folder.FaultsFile))
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// ticketdFile writes a target file for the Go example into a folder of its
// own, with edit applied to the example's own file, and returns its path.
func ticketdFile(t *testing.T, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/ticketd/target.yaml")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("../../examples/ticketd")
	if err != nil {
		t.Fatal(err)
	}
	// TestBadTargets built the binary once; the file does not build it.
	text := strings.Replace(string(b), "  build: [go, build, -o, bin/ticketd, .]\n", "", 1)
	text = strings.Replace(text, "command: [bin/ticketd]", "command: ["+abs+"/bin/ticketd]", 1)
	// Mark the replicas, to find any left behind.
	text = strings.Replace(text, "  env:\n", "  env:\n    HAMMER_TEST_MARK: "+testMark(t)+"\n", 1)
	path := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(path, []byte(edit(text)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBadTargets: a target file or a service that is wrong gives one
// clear line and exit 2 (the file) or 3 (the service failed), fast, and
// leaves no replica, schema or key behind.
func TestBadTargets(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(string) string
		wantCode int
		want     string
	}{
		{"unknown key", func(s string) string {
			return strings.Replace(s, "port_env: PORT", "port_env: PORT\n  colour: blue", 1)
		},
			exitUsage, "colour"},
		{"missing ledger", func(s string) string {
			return strings.Replace(s, "  ledger: SELECT request_id, seat FROM sales WHERE sector_id = {{sector}}\n", "", 1)
		}, exitUsage, "ledger"},
		{"no request id sent", func(s string) string { return strings.Replace(s, `"request_id": "{{request_id}}", `, "", 1) },
			exitUsage, "must send {{request_id}}"},
		{"lock key outside the prefix", func(s string) string {
			return strings.Replace(s, `lock_key: "{{key_prefix}}lock`, `lock_key: "shared:lock`, 1)
		}, exitUsage, "lock_key: a fixed key name needs a service whose keys all have fixed names, but variant naive is handed {{key_prefix}}"},
		// The service's own failures to start are the target file's: exit
		// 2, and no race waits for them again.
		{"command exits at once", func(s string) string {
			return strings.Replace(s, "command: [", "command: [sh, -c, 'echo cannot bind >&2; exit 3', ", 1)
		}, exitUsage, "(sh) exit status 3 before it was ready: cannot bind"}, // whichever replica failed first
		{"never ready", func(s string) string {
			return strings.Replace(strings.Replace(s, "ready: /healthz", "ready: /nowhere", 1), "ready_timeout: 20s", "ready_timeout: 2s", 1)
		}, exitInfra, "not ready within ready_timeout 2s (GET /nowhere: status 404"},
		{"setup SQL fails", func(s string) string { return strings.Replace(s, "CREATE TABLE sales (", "CREATE TABLE sales ((", 1) },
			exitUsage, "setup: statement 2 (CREATE TABLE sales ((seat int"},
		{"setup SQL PostgreSQL refuses in a transaction", func(s string) string {
			return strings.Replace(s, "  INSERT INTO sectors", "  DROP DATABASE hammer_no_such_db;\n  INSERT INTO sectors", 1)
		}, exitUsage, "setup: statement 3 (DROP DATABASE hammer_no_such_db): DROP DATABASE cannot run inside a transaction block (SQLSTATE 25001)"},
		{"setup SQL commits half-way", func(s string) string {
			return strings.Replace(s, "  CREATE TABLE sales", "  COMMIT;\n  CREATE TABLE sales", 1)
		}, exitUsage, "target.yaml:24: setup: statement 2 (COMMIT) ends or begins a transaction"},
		{"setup SQL moves the search_path", func(s string) string {
			return strings.Replace(s, "  CREATE TABLE sales", "  SET LOCAL search_path TO public;\n  CREATE TABLE sales", 1)
		}, exitUsage, "target.yaml:24: setup: statement 2 (SET LOCAL search_path TO public) moves the search_path"},
		{"setup SQL names a missing table", func(s string) string {
			return strings.Replace(s, "INSERT INTO sectors VALUES", "INSERT INTO sector VALUES", 1)
		}, exitUsage, `statement 3 (INSERT INTO sector VALUES (1, 20, 20)): relation "sector" does not exist (SQLSTATE 42P01)`},
		{"truth.ledger names a table setup did not make", func(s string) string {
			return strings.Replace(s, "seat FROM sales WHERE", "seat FROM salez WHERE", 1)
		}, exitUsage, `target.yaml: truth.ledger: relation "salez" does not exist (SQLSTATE 42P01)`},
		{"truth.sector returns one column", func(s string) string {
			return strings.Replace(s, "SELECT capacity, available FROM sectors", "SELECT capacity FROM sectors", 1)
		}, exitUsage, "target.yaml: truth.sector: returns 1 column, want 2: the capacity and the seats available"},
		{"truth.sector returns text for a count", func(s string) string {
			return strings.Replace(s, "SELECT capacity, available FROM sectors", "SELECT 'many', available FROM sectors", 1)
		}, exitUsage, "target.yaml: truth.sector: returns text for column 1 (?column?), want an integer (smallint, integer, bigint or numeric): the capacity and the seats available"},
		// The ledger has no row before the race: its types are told from
		// its columns, not from a row scanned.
		{"truth.ledger returns its columns swapped", func(s string) string {
			return strings.Replace(s, "SELECT request_id, seat FROM sales", "SELECT seat, request_id FROM sales", 1)
		}, exitUsage, "target.yaml: truth.ledger: returns int4 for column 1 (seat), want text (text, varchar, char or uuid): the request id and the seat"},
		{"command not found", func(s string) string {
			return strings.Replace(s, "command: [", "command: [hammer-no-such-program, ", 1)
		},
			exitUsage, "service.command: hammer-no-such-program is not an executable file in $PATH"},
		{"command not executable", func(s string) string {
			return regexp.MustCompile(`command: \[[^]]*\]`).ReplaceAllString(s, "command: [./target.yaml]")
		}, exitUsage, "service.command: ./target.yaml is not an executable file (from "},
		{"build fails", func(s string) string {
			return strings.Replace(s, "  port_env: PORT", `  build: [sh, -c, 'echo "npm error npx canceled due to missing packages" >&2; echo "npm error A complete log of this run can be found in: /x.log" >&2; exit 1']
  port_env: PORT`, 1)
		}, exitUsage, "failed: exit status 1: npm error npx canceled due to missing packages | npm error A complete log of this run can be found in: /x.log"},
		{"build not found", func(s string) string {
			return strings.Replace(s, "  port_env: PORT", "  build: [./no-such-build.sh]\n  port_env: PORT", 1)
		}, exitUsage, "service.build: ./no-such-build.sh is not an executable file"},
		{"no rule matches", func(s string) string { return strings.ReplaceAll(s, "status: 201", "status: 299") },
			exitInfra, "matched no response rule"},
		// Nothing touches a lock key the service does not use: the fault
		// that strikes its holders says so rather than only that none came.
		{"lock_key the service does not use", func(s string) string {
			return strings.Replace(s, `lock_key: "{{key_prefix}}lock:`, `lock_key: "{{key_prefix}}locks:`, 1)
		}, exitInfra, "Redis saw no command on the lock key hammer:"},
	}
	// The variant and fault a case races, where not lock-plus-update alone.
	races := map[string][]string{"lock_key the service does not use": {"--variant", "lock-only", "--fault", "pause-stop"}}
	st := stacktest.Get(t)
	build := exec.Command("go", "build", "-o", "bin/ticketd", ".")
	build.Dir = "../../examples/ticketd"
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example: %v: %s", err, out)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantCode != exitUsage {
				// A race: leftovers are looked for by its run id.
				t.Parallel()
			}
			path := ticketdFile(t, tt.edit)
			dir := filepath.Join(t.TempDir(), "out")
			var before map[string]bool
			beforePublic := ""
			if tt.wantCode == exitUsage {
				before, beforePublic = leftovers(t, st), publicRelations(t, st)
			}
			start := time.Now()
			race := []string{"--variant", "lock-plus-update"}
			if r, ok := races[tt.name]; ok {
				race = r
			}
			code, stdout, stderr := hammer(t, slices.Concat([]string{"run", "--target", path}, race, serviceArgs(t, dir))...)
			// It must not wait for --timeout (5 min); the bound is wide
			// because a -race run on a busy 2-core runner took 22 s.
			if took := time.Since(start); took > time.Minute {
				t.Errorf("took %s, want at most a minute", took)
			}
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("output does not say %q\nstdout: %s\nstderr: %s", tt.want, stdout, stderr)
			}
			if tt.wantCode == exitUsage {
				if len(strings.Split(strings.TrimSpace(stderr), "\n")) != 1 {
					t.Errorf("stderr = %q, want one line", stderr)
				}
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("a results folder was left at %s", dir)
				}
				if left := appeared(before, leftovers(t, st)); len(left) > 0 {
					t.Errorf("hammer left %s", strings.Join(left, ", "))
				}
				if after := publicRelations(t, st); after != beforePublic {
					t.Errorf("relations in public: %q before, %q after", beforePublic, after)
				}
			} else {
				s := readSummary(t, dir)
				if left := leftoversOf(t, st, s.RunID); left != "" {
					t.Errorf("the run left %s", left)
				}
				// Whether or not the replicas got ready, what they printed is kept.
				if len(s.Runs) != 1 || len(s.Runs[0].ReplicaLogs) == 0 {
					t.Errorf("the folder keeps no replica log: %+v", s.Runs)
				}
			}
			if pids := markedProcesses(testMark(t)); len(pids) > 0 {
				t.Errorf("replicas left running: %v", pids)
			}
		})
	}
}

// leftoversOf names the schemas and keys run runID left on st, if any.
func leftoversOf(t *testing.T, st *stack.Stack, runID string) string {
	t.Helper()
	left := appeared(nil, namesUnder(t, st, seatdb.SchemaName(runID, ""), "hammer:"+runID+":"))
	return strings.Join(left, ", ")
}

// testMark is a string unique to the test, put in the environment of the
// replicas it starts.
func testMark(t *testing.T) string {
	return fmt.Sprintf("%d-%x", os.Getpid(), fnv32(t.Name()))
}

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// markedProcesses lists the live processes whose environment holds
// HAMMER_TEST_MARK=mark: none may outlive a run.
func markedProcesses(mark string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !strings.Contains(string(env), "HAMMER_TEST_MARK="+mark+"\x00") {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue // a zombie is dead already
		}
		out = append(out, e.Name())
	}
	return out
}

// publicRelations lists the relations in the server's default schema,
// public, where setup SQL that left its transaction would make tables.
func publicRelations(t *testing.T, st *stack.Stack) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, st.PGURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var names string
	if err := conn.QueryRow(ctx, "SELECT coalesce(string_agg(relname, ',' ORDER BY relname), '') FROM pg_class WHERE relnamespace = 'public'::regnamespace").Scan(&names); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestServiceSetUpInALaterCell: a variant whose service exits at start
// (an unknown STRATEGY) after another variant raced does not throw that
// race's proof away: the cell is not run (unknown, exit 3) and the folder
// keeps the first cell's verdict. In the first cell it is exit 2 (see
// TestBadTargets).
func TestServiceSetUpInALaterCell(t *testing.T) {
	t.Parallel() // its own run id: leftovers are looked for by it
	st := stacktest.Get(t)
	build := exec.Command("go", "build", "-o", "bin/ticketd", ".")
	build.Dir = "../../examples/ticketd"
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example: %v: %s", err, out)
	}
	path := ticketdFile(t, func(s string) string {
		s = strings.Replace(s, "  lock-only:        {env: {STRATEGY: lock-only}, expect: safe}\n", "", 1)
		s = strings.Replace(s, "  update-only:      {env: {STRATEGY: update-only}, expect: safe}\n", "", 1)
		return strings.Replace(s, "{env: {STRATEGY: lock-plus-update}", "{env: {STRATEGY: lock-plus-updat}", 1)
	})
	dir := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := hammer(t, append([]string{"load", "--target", path}, serviceArgs(t, dir)...)...)
	if code != exitInfra {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitInfra, stdout, stderr)
	}
	s := readSummary(t, dir)
	var got []string
	for _, r := range s.Runs {
		got = append(got, fmt.Sprintf("%s %s (expectation held: %t): %q", r.Name, r.Verdict, r.ExpectOK, r.Undetermined))
	}
	if len(s.Runs) != 2 || s.Runs[0].Name != "naive" || s.Runs[0].Verdict != "invalid" || !s.Runs[0].ExpectOK ||
		s.Runs[1].Verdict != "unknown" || !strings.Contains(strings.Join(s.Runs[1].Undetermined, " "), "exit status 1 before it was ready") {
		t.Errorf("runs:\n%s\nwant naive invalid as expected, then lock-plus-update unknown: its replicas exited", strings.Join(got, "\n"))
	}
	if left := leftoversOf(t, st, s.RunID); left != "" {
		t.Errorf("the run left %s", left)
	}
	if pids := markedProcesses(testMark(t)); len(pids) > 0 {
		t.Errorf("replicas left running: %v", pids)
	}
}
