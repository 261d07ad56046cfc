package main

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// secretMark is in every password and token the walk hands hammer: it
// must never be printed, whole or in part.
const secretMark = "SECRET"

// walkToken is a valid shared token (as `hammer token` would print), given
// through the environment so that no --token warning adds a line.
const walkToken = "Zq7" + secretMark + "-tok-0123456789abcdefghijklmnop"

// Unreachable servers with passwords: a value hammer wrongly accepts
// fails differently (exit 3, the servers do not answer) instead of
// starting anything.
const (
	deadRedisURL = "redis://u:Zq7" + secretMark + "r@127.0.0.1:1/0"
	deadPGURL    = "postgres://u:Zq7" + secretMark + "p@127.0.0.1:1/db?sslmode=disable"
)

// flagRow is what the walk feeds one flag: values it must refuse.
type flagRow struct {
	kind string // int, uint, float, duration, bool or string: adds values that do not parse
	// bad are values of the flag's type that must be refused.
	bad []string
	// exempt, when every value that parses is valid, says why.
	exempt string
	// with are more arguments that make the values reach their check.
	with []string
	// base replaces the command's base arguments.
	base []string
	// names is what the refusal must mention (default: the flag's name):
	// it was refused for this flag, not for something else.
	names string
}

// unparsable are values of each kind of flag that do not parse.
var unparsable = map[string][]string{
	"int":      {"x", "1.5", "99999999999999999999"},
	"uint":     {"x", "-1"},
	"float":    {"x"},
	"duration": {"x", "1"},
	"bool":     {"x"},
	"string":   nil,
}

// TestFlagWalk gives every flag of every command values it must refuse
// and checks each refusal: exit 2, one line `hammer CMD: … (see hammer
// CMD -h)` naming the flag, nothing on stdout, no secret printed, nothing
// written. The flags come from the commands' own help, so a flag added
// without a row here fails the test by name.
func TestFlagWalk(t *testing.T) {
	fx := walkFixtures(t)
	t.Setenv(envToken, walkToken)
	t.Setenv(envRedisURL, "")
	t.Setenv(envPGURL, "")
	t.Setenv("JOB_COMPLETION_INDEX", "")
	rows := flagRows(fx)
	ext := []string{"--stack", "external", "--redis-url", deadRedisURL, "--pg-url", deadPGURL}
	bases := map[string][]string{
		"run":   append([]string{"--mode", "none"}, ext...),
		"load":  ext,
		"gate":  ext,
		"agent": {"--join", "127.0.0.1:1", "--join-timeout", "1ms"},
	}
	// tails are the arguments after the flags.
	tails := map[string][]string{"verify": {fx.folder}, "report": {fx.folder}}
	for _, cmd := range []string{"run", "load", "gate", "agent", "token", "verify", "report", "version"} {
		for _, fl := range helpFlags(t, cmd) {
			row, ok := rows[cmd+" --"+fl.name]
			if !ok {
				row, ok = rows["--"+fl.name]
			}
			switch {
			case !ok:
				t.Errorf("hammer %s --%s has no row in flagRows: add the values it must refuse, or exempt it saying why", cmd, fl.name)
				continue
			case (row.kind == "bool") != fl.isBool:
				t.Errorf("hammer %s --%s: its row says kind %s, its help says bool %t", cmd, fl.name, row.kind, fl.isBool)
			case row.exempt == "" && len(row.bad) == 0:
				t.Errorf("hammer %s --%s: its row has no bad value and no reason to be exempt", cmd, fl.name)
			}
			base := bases[cmd]
			if row.base != nil {
				base = row.base
			}
			names := row.names
			if names == "" {
				names = "-" + fl.name
			}
			for _, v := range append(slices.Clone(unparsable[row.kind]), row.bad...) {
				args := slices.Concat([]string{cmd}, base, row.with, []string{"--" + fl.name + "=" + v}, tails[cmd])
				t.Run(cmd+"/"+fl.name+"="+v, func(t *testing.T) { refused(t, cmd, args, names) })
			}
		}
	}
}

// TestArgWalk: arguments that are not flags, an unknown command and
// server URLs from the environment are refused the same way.
func TestArgWalk(t *testing.T) {
	fx := walkFixtures(t)
	t.Setenv(envToken, walkToken)
	t.Setenv("JOB_COMPLETION_INDEX", "")
	ext := []string{"--stack", "external", "--redis-url", deadRedisURL, "--pg-url", deadPGURL}
	missing := filepath.Join(fx.dir, "missing")
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		cmd       string // the command the line names ("" for hammer itself)
		names     string
		fromFlags bool // URLs from the environment: no --redis-url, --pg-url
	}{
		{name: "unknown command", args: []string{"race"}, names: `"race"`},
		{name: "unknown flag before a command", args: []string{"--mode", "none"}, names: `"--mode"`},
		{name: "run extra argument", args: append([]string{"run", "--mode", "none", "extra"}, ext...), cmd: "run", names: `"extra"`},
		{name: "load extra argument", args: append([]string{"load", "extra"}, ext...), cmd: "load", names: `"extra"`},
		{name: "gate extra argument", args: append([]string{"gate", "extra"}, ext...), cmd: "gate", names: `"extra"`},
		{name: "agent extra argument", args: []string{"agent", "--join", "127.0.0.1:1", "extra"}, cmd: "agent", names: `"extra"`},
		{name: "agent without join", args: []string{"agent"}, cmd: "agent", names: "--join"},
		{name: "agent bad completion index", args: []string{"agent", "--join", "127.0.0.1:1"}, env: map[string]string{"JOB_COMPLETION_INDEX": "x"}, cmd: "agent", names: "$JOB_COMPLETION_INDEX"},
		{name: "verify no folder", args: []string{"verify"}, cmd: "verify", names: "folder"},
		{name: "verify two folders", args: []string{"verify", fx.folder, fx.folder}, cmd: "verify", names: "folder"},
		{name: "verify missing folder", args: []string{"verify", missing}, cmd: "verify", names: "missing"},
		{name: "verify a file", args: []string{"verify", fx.file}, cmd: "verify", names: "plain"},
		{name: "report no folder", args: []string{"report"}, cmd: "report", names: "folder"},
		{name: "report missing folder", args: []string{"report", missing}, cmd: "report", names: "missing"},
		{name: "report compare one folder", args: []string{"report", "--compare", fx.folder}, cmd: "report", names: "--compare"},
		{name: "report compare missing", args: []string{"report", "--compare", missing, fx.folder}, cmd: "report", names: "missing"},
		{name: "version extra argument", args: []string{"version", "x"}, cmd: "version", names: `"x"`},
		{name: "redis url from env malformed", args: []string{"run", "--mode", "none", "--stack", "external"},
			env: map[string]string{envRedisURL: "http://u:Zq7" + secretMark + "@127.0.0.1:1/0", envPGURL: deadPGURL}, cmd: "run", names: "$" + envRedisURL},
		{name: "redis url from env with a control character", args: []string{"run", "--mode", "none", "--stack", "external"},
			env: map[string]string{envRedisURL: "redis://u:Zq7" + secretMark + "\x01@127.0.0.1:1/0", envPGURL: deadPGURL}, cmd: "run", names: "$" + envRedisURL},
		{name: "pg url from env malformed", args: []string{"gate"},
			env: map[string]string{envRedisURL: deadRedisURL, envPGURL: "postgres://u:Zq7" + secretMark + "@[bad"}, cmd: "gate", names: "$" + envPGURL},
		{name: "pg url from env with a newline", args: []string{"load"},
			env: map[string]string{envRedisURL: deadRedisURL, envPGURL: deadPGURL + "\n"}, cmd: "load", names: "$" + envPGURL},
		{name: "only a redis url", args: []string{"run", "--mode", "none", "--redis-url", deadRedisURL},
			env: map[string]string{envPGURL: ""}, cmd: "run", names: "--pg-url"},
		{name: "external without urls", args: []string{"run", "--mode", "none", "--stack", "external"},
			env: map[string]string{envRedisURL: "", envPGURL: ""}, cmd: "run", names: "--redis-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envRedisURL, "")
			t.Setenv(envPGURL, "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			refused(t, tt.cmd, tt.args, tt.names)
		})
	}
}

// refusalLine is the one line of every refusal.
var refusalLine = regexp.MustCompile(`^hammer( [a-z]+)?: (.+) \(see hammer( [a-z]+)? -h\)\n$`)

// refused runs hammer with args in an empty working directory and checks
// that it refused them as a refusal must: exit 2; on stderr one line in
// the shape of refusalLine, of command cmd, mentioning names; nothing on
// stdout; no secret; nothing written in the working directory.
func refused(t *testing.T, cmd string, args []string, names string) {
	t.Helper()
	cwd := t.TempDir()
	t.Chdir(cwd)
	code, stdout, stderr := hammer(t, args...)
	if code != exitUsage {
		t.Errorf("exit %d, want %d; stderr: %q", code, exitUsage, stderr)
	}
	m := refusalLine.FindStringSubmatch(stderr)
	want := ""
	if cmd != "" {
		want = " " + cmd
	}
	switch {
	case m == nil:
		t.Errorf("stderr = %q, want one line `hammer%s: … (see hammer%s -h)`", stderr, want, want)
	case m[1] != want || m[3] != want:
		t.Errorf("stderr = %q names command %q and help %q, want %q", stderr, m[1], m[3], want)
	case !strings.Contains(m[2], names):
		t.Errorf("stderr = %q does not mention %q", stderr, names)
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
	if strings.Contains(stdout+stderr, secretMark) {
		t.Errorf("a secret was printed: stdout %q, stderr %q", stdout, stderr)
	}
	if strings.Contains(stderr, "%!") {
		t.Errorf("stderr = %q holds a formatting mistake (%%!)", stderr)
	}
	if entries, _ := os.ReadDir(cwd); len(entries) > 0 {
		t.Errorf("left %s in the working directory", entries[0].Name())
	}
}

// helpFlag is a flag as a command's help lists it.
type helpFlag struct {
	name   string
	isBool bool // listed without a value name
}

// helpLine is a flag's line in a flag set's PrintDefaults.
var helpLine = regexp.MustCompile(`^  -(\S+)( \S+)?$`)

// helpFlags are the flags `hammer cmd -h` lists: the real flag set's.
func helpFlags(t *testing.T, cmd string) []helpFlag {
	t.Helper()
	code, stdout, stderr := hammer(t, cmd, "-h")
	if code != exitOK || !strings.HasPrefix(stdout, "Usage of hammer "+cmd) {
		t.Fatalf("hammer %s -h: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
	}
	var out []helpFlag
	for _, l := range strings.Split(stdout, "\n") {
		if m := helpLine.FindStringSubmatch(l); m != nil {
			out = append(out, helpFlag{name: m[1], isBool: m[2] == ""})
		}
	}
	return out
}

// walkFixture are files the rows point at.
type walkFixture struct {
	dir      string
	folder   string // a results folder
	file     string // a plain file
	nonEmpty string // a folder holding a file
	matrix   string // a matrix that does not parse
	target   string // an example service's target file
	busy     string // a loopback host:port something listens on
}

// walkFixtures makes them, outside every working directory of the walk.
func walkFixtures(t *testing.T) walkFixture {
	t.Helper()
	dir := t.TempDir()
	fx := walkFixture{dir: dir, folder: filepath.Join(dir, "folder"), file: filepath.Join(dir, "plain.txt"),
		nonEmpty: filepath.Join(dir, "nonempty"), matrix: filepath.Join(dir, "bad.matrix")}
	target, err := filepath.Abs("../../examples/ticketd/target.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fx.target = target
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	fx.busy = ln.Addr().String()
	for _, d := range []string{fx.folder, fx.nonEmpty} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for path, text := range map[string]string{fx.file: "plain", filepath.Join(fx.nonEmpty, "keep.txt"): "mine", fx.matrix: "no-such-mode none safe\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fx
}

// flagRows are the values each flag must refuse, by "--name" for every
// command that has it, or "cmd --name" for one command's own.
func flagRows(fx walkFixture) map[string]flagRow {
	ext := []string{"--stack", "external", "--redis-url", deadRedisURL, "--pg-url", deadPGURL}
	agents := []string{"--agents", "2"}
	secret := "Zq7" + secretMark
	// A missing file, a folder, an endless one, an empty one, a short token.
	badTokenFiles := []string{filepath.Join(fx.dir, "missing.token"), fx.dir, "/dev/zero", "/dev/null", fx.file}
	badRedis := []string{
		"http://u:" + secret + "@127.0.0.1:1/0",
		"redis://u:" + secret + "@[bad",
		"redis://u:" + secret + "%zz@127.0.0.1:1/0",
		"redis://u:" + secret + "@127.0.0.1:70000/0",
		"redis://u:" + secret + "@127.0.0.1:1/x",
		"redis://u:" + secret + "\x01@127.0.0.1:1/0",
		"redis://u:" + secret + "@127.0.0.1:1/0\n",
		"redis://u:" + secret + "@127.0.0.1:1/0,",
		"redis://u:" + secret + "@127.0.0.1:1/0,redis://u:" + secret + "@[bad,redis://127.0.0.1:2/0",
	}
	badPG := []string{
		"postgres://u:" + secret + "@[bad",
		"postgres://u:" + secret + "@127.0.0.1:70000/db",
		"postgres://u:" + secret + "@127.0.0.1:port/db",
		"postgres://u:" + secret + "%zz@127.0.0.1:1/db",
		"postgres://u:" + secret + "\x7f@127.0.0.1:1/db",
		"host=127.0.0.1 password=" + secret + " port=x",
	}
	badOTLP := []string{"127.0.0.1:4318", "grpc://127.0.0.1:4317", "http://", "http://127.0.0.1:70000", "http://127.0.0.1:4318?x=1",
		"http://u:" + secret + "@127.0.0.1:4318", "u:" + secret + "@127.0.0.1:4318", "http://u:" + secret + "\x01@127.0.0.1:4318"}
	positive := []string{"-1", "0"}
	huge := "2147483647" // × the other sizes passes what a race records
	return map[string]flagRow{
		"--procs":          {kind: "int", bad: append(positive, huge)},
		"--goroutines":     {kind: "int", bad: append(positive, huge)},
		"--attempts":       {kind: "int", bad: append(positive, huge)},
		"--seats":          {kind: "int", bad: append(positive, "2147483648")},
		"--pool":           {kind: "int", bad: append(positive, "1000000000")},
		"--redis-pool":     {kind: "int", bad: append(positive, "1000000000")},
		"--redis-nodes":    {kind: "int", bad: []string{"-1", "0", "2", "1000001"}},
		"--lock-ttl":       {kind: "duration", bad: []string{"-1s", "0s", "1ns"}},
		"--lock-wait":      {kind: "duration", bad: []string{"-1s", "0s"}},
		"--timeout":        {kind: "duration", bad: []string{"-1s", "0s"}},
		"--seed":           {kind: "uint", exempt: "every seed is valid; 0 picks one and records it"},
		"--out":            {kind: "string", bad: []string{fx.nonEmpty, fx.file, "/proc/hammer-results"}},
		"--stack":          {kind: "string", bad: []string{"kubernetes"}, names: "stack"},
		"--redis-url":      {kind: "string", bad: badRedis},
		"--pg-url":         {kind: "string", bad: badPG},
		"--sold-out-hint":  {kind: "bool", exempt: "both values are strategies to race"},
		"--realtime-start": {kind: "bool", exempt: "both values are ways to start; where real time is not allowed it says so and starts ordinarily"},
		"--keep":           {kind: "bool", exempt: "both values are valid"},
		"--quiet":          {kind: "bool", exempt: "both values are valid"},
		"--lock":           {kind: "string", bad: []string{"nope", "redlock"}},
		"--target":         {kind: "string", bad: []string{filepath.Join(fx.dir, "missing.target"), fx.dir}, names: fx.dir},
		"--replicas":       {kind: "int", bad: append(positive, "101"), with: []string{"--target", fx.target}, base: ext},
		"run --replicas":   {kind: "int", bad: append(positive, "101"), with: []string{"--target", fx.target, "--variant", "naive"}, base: ext},
		"--otlp":           {kind: "string", bad: badOTLP, with: []string{"--target", fx.target}, base: ext},
		"run --otlp":       {kind: "string", bad: badOTLP, with: []string{"--target", fx.target, "--variant", "naive"}, base: ext},
		"--agents":         {kind: "int", bad: append(positive, huge)},
		"--listen": {kind: "string", with: agents, bad: []string{"999.1.1.1:70000", "999.1.1.1:7070", "127.0.0.1:70000", "127.0.0.1:x",
			"127.0.0.1", "bad_host!:7070", "-bad:7070", ""}},
		"--join-timeout": {kind: "duration", with: agents, bad: []string{"-1s", "0s"}},
		"--live": {kind: "string", bad: []string{"x", "127.0.0.1", "127.0.0.1:70000", ":x", "999.1.1.1:8080", "bad_host!:8080", "-1", "no-such-host.invalid:8080",
			fx.busy, strings.TrimPrefix(fx.busy, "127.0.0.1")}},
		"--token":        {kind: "string", with: agents, bad: []string{"short", "Zq7" + secretMark}},
		"--token-file":   {kind: "string", with: agents, bad: badTokenFiles},
		"run --mode":     {kind: "string", bad: []string{"optimistic", ""}, names: "mode"},
		"run --fault":    {kind: "string", bad: []string{"nope", "node-restart"}, names: "fault"},
		"run --extend":   {kind: "bool", bad: []string{"true"}},
		"run --rate":     {kind: "float", with: []string{"--duration", "1s"}, bad: []string{"-1", "0", "NaN", "Inf", "1e12"}},
		"run --duration": {kind: "duration", with: []string{"--rate", "10"}, bad: []string{"-1s", "0s", "10m"}},
		"run --variant":  {kind: "string", bad: []string{"naive"}},
		"gate --matrix":  {kind: "string", bad: []string{fx.matrix, filepath.Join(fx.dir, "missing.matrix"), fx.dir}, names: fx.dir},
		"agent --join": {kind: "string", bad: []string{"", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "999.1.1.1:7070",
			":7070", "bad_host!:7070"}},
		"agent --index":        {kind: "string", bad: []string{"-1", "x", "1.5"}},
		"agent --join-timeout": {kind: "duration", bad: []string{"-1s", "0s"}},
		"agent --token":        {kind: "string", bad: []string{"short", "Zq7" + secretMark}},
		"agent --token-file":   {kind: "string", bad: badTokenFiles},
		"agent --clock-offset": {kind: "duration", exempt: "tests only: a clock ahead or behind by any amount is a host to play"},
		"report --compare":     {kind: "bool", exempt: "both values are valid; its folders are checked by TestArgWalk"},
	}
}

// TestURLErrorsQuoteNoURL: the reason a server URL is refused never
// holds the URL, so no password reaches stderr even where the masking of
// what is printed could not find it (a password with a control character
// is quoted escaped; a piece of one next to a bad percent-escape).
func TestURLErrorsQuoteNoURL(t *testing.T) {
	secret := "Zq7" + secretMark
	tests := []struct {
		name, url string
		check     func(string) error
	}{
		{"redis bad host", "redis://u:" + secret + "@[bad", checkRedisURL},
		{"redis control character", "redis://u:" + secret + "\x01x@127.0.0.1:1/0", checkRedisURL},
		{"redis bad escape", "redis://u:" + secret + "%zz@127.0.0.1:1/0", checkRedisURL},
		{"redis bad escape at the start", "redis://u:%zz" + secret + "@127.0.0.1:1/0", checkRedisURL},
		{"redis bad port", "redis://u:" + secret + "@127.0.0.1:port/0", checkRedisURL},
		{"redis port out of range", "redis://u:" + secret + "@127.0.0.1:70000/0", checkRedisURL},
		{"redis wrong scheme", "http://u:" + secret + "@127.0.0.1:1/0", checkRedisURL},
		{"pg bad host", "postgres://u:" + secret + "@[bad", checkPGURL},
		{"pg bad escape", "postgres://u:" + secret + "%zz@127.0.0.1:1/db", checkPGURL},
		{"pg bad port", "postgres://u:" + secret + "@127.0.0.1:port/db", checkPGURL},
		{"pg keyword string", "host=127.0.0.1 password=" + secret + " port=x", checkPGURL},
		{"pg keyword string, quoted", "host=127.0.0.1 password='" + secret + " port=1", checkPGURL},
		{"pg control character", "postgres://u:" + secret + "\x7f@127.0.0.1:1/db", checkPGURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check(tt.url)
			switch {
			case err == nil:
				t.Fatalf("%q was accepted", tt.url)
			case strings.Contains(err.Error(), secretMark) || strings.Contains(err.Error(), "Zq7"):
				t.Errorf("the reason quotes the password: %v", err)
			}
		})
	}
}
