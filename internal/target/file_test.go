package target

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// base is a valid target file; the cases of TestLoadInvalid break one of
// its lines (numbered in the comments of the cases).
const base = `name: ticketd
service:
  build: [go, build, -o, bin/ticketd, .]
  command: [bin/ticketd]
  port_env: PORT
  env:
    REDIS_URL: "{{redis_url}}"
    PG_URL: "{{pg_url}}"
    PG_SCHEMA: "{{pg_schema}}"
    KEY_PREFIX: "{{key_prefix}}"
    LOCK_TTL_MS: "{{lock_ttl_ms}}"
  ready: /healthz
  ready_timeout: 20s
setup: |
  CREATE TABLE sectors (id int PRIMARY KEY, capacity int NOT NULL, available int NOT NULL);
  INSERT INTO sectors VALUES ({{sector}}, {{seats}}, {{seats}});
variants:
  naive:            {env: {STRATEGY: naive}, expect: unsafe}
  lock-only:        {env: {STRATEGY: lock-only}, expect: safe}
  update-only:      {env: {STRATEGY: update-only}, expect: safe}
  lock-plus-update: {env: {STRATEGY: lock-plus-update}, expect: safe}
request:
  method: POST
  path: /sectors/{{sector}}/reservations
  headers: {Content-Type: application/json}
  body: '{"request_id": "{{request_id}}", "contender": "{{contender}}"}'
  timeout: 10s
responses:
  - status: 201
    outcome: sold
    seat: /seat
  - status: 409
    json: {pointer: /error, equals: sold_out}
    outcome: sold_out
  - status: 409
    outcome: rejected
lock_key: "{{key_prefix}}lock:sector:{{sector}}"
truth:
  ledger: SELECT request_id, seat FROM sales WHERE sector_id = {{sector}}
  sector: SELECT capacity, available FROM sectors WHERE id = {{sector}}
`

// edit returns base with its lines from..to (1-based, inclusive) replaced
// by text; from 0 appends text. An empty text deletes the lines.
func edit(from, to int, text string) string {
	lines := strings.Split(strings.TrimSuffix(base, "\n"), "\n")
	if from == 0 {
		return base + text + "\n"
	}
	var repl []string
	if text != "" {
		repl = strings.Split(text, "\n")
	}
	lines = slices.Replace(lines, from-1, to, repl...)
	return strings.Join(lines, "\n") + "\n"
}

// write saves a target file in a fresh folder and returns its path.
func write(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadExample(t *testing.T) {
	f, err := Load(filepath.Join("testdata", "ticketd.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	dir, _ := filepath.Abs("testdata")
	if f.Dir != dir || f.Name != "ticketd" {
		t.Errorf("Dir %q, Name %q; want %q, ticketd", f.Dir, f.Name, dir)
	}
	s := f.Service
	if s == nil || !slices.Equal(s.Command, []string{"bin/ticketd"}) || s.PortEnv != "PORT" || s.Ready != "/healthz" ||
		s.ReadyTimeout != 20*time.Second || s.Env["REDIS_URL"] != "{{redis_url}}" || len(s.Build) != 5 {
		t.Errorf("service = %+v", s)
	}
	want := []string{"naive", "lock-only", "update-only", "lock-plus-update"}
	if got := f.VariantNames(); !slices.Equal(got, want) {
		t.Errorf("VariantNames = %q, want %q (file order)", got, want)
	}
	if f.Request.Method != "POST" || f.Request.Timeout != 10*time.Second || f.Request.Headers["Content-Type"] != "application/json" {
		t.Errorf("request = %+v", f.Request)
	}
	if len(f.Responses) != 3 || f.Responses[1].JSON == nil || f.Responses[1].JSON.Equals != "sold_out" || f.Responses[0].Seat != "/seat" {
		t.Errorf("responses = %+v", f.Responses)
	}
	if !strings.Contains(f.Truth.Ledger, "FROM sales") || !strings.Contains(f.Truth.Sector, "FROM sectors") || f.LockKey == "" {
		t.Errorf("truth %+v, lock key %q", f.Truth, f.LockKey)
	}
}

func TestVariant(t *testing.T) {
	f, err := Load(write(t, base))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	tests := []struct {
		name, variant string
		want          scenarios.Expectation
		wantErr       string
	}{
		{name: "unsafe", variant: "naive", want: scenarios.Unsafe},
		{name: "safe", variant: "lock-plus-update", want: scenarios.Safe},
		{name: "unknown", variant: "fenced", wantErr: `no variant "fenced" (the file has naive, lock-only, update-only, lock-plus-update)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := f.Variant(tt.variant)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Variant: %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || v.Expect != tt.want || v.Name != tt.variant || v.Env["STRATEGY"] != tt.variant {
				t.Errorf("Variant = %+v, %v; want expect %s", v, err, tt.want)
			}
		})
	}
}

func TestLoadValid(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		check func(t *testing.T, f *File)
	}{
		{
			name: "defaults",
			text: edit(27, 27, ""), // request.timeout; ready_timeout stays
			check: func(t *testing.T, f *File) {
				if f.Request.Timeout != DefaultRequestTimeout {
					t.Errorf("timeout %v, want %v", f.Request.Timeout, DefaultRequestTimeout)
				}
			},
		},
		{
			name: "env gives the port its own placeholder",
			text: edit(7, 7, `    PORT: "{{port}}"`),
			check: func(t *testing.T, f *File) {
				if f.Service.Env["PORT"] != "{{port}}" {
					t.Errorf("service.env = %v, want PORT kept as {{port}}", f.Service.Env)
				}
			},
		},
		{
			name: "urls",
			text: edit(2, 13, "urls: [http://127.0.0.1:8080/, 'https://shop.example']"),
			check: func(t *testing.T, f *File) {
				if f.Service != nil || !slices.Equal(f.URLs, []string{"http://127.0.0.1:8080", "https://shop.example"}) {
					t.Errorf("service %v, urls %q", f.Service, f.URLs)
				}
			},
		},
		{
			name: "json numbers and no optional keys",
			text: edit(32, 34, "  - status: 409\n    json: {pointer: /code, equals: 42}\n    outcome: sold_out") + "",
			check: func(t *testing.T, f *File) {
				if got := f.Responses[1].JSON.Equals; got != "42" {
					t.Errorf("equals %q, want 42", got)
				}
				if f.Responses[1].Outcome != history.SoldOut {
					t.Errorf("outcome %q", f.Responses[1].Outcome)
				}
			},
		},
		{
			name: "json text passes through",
			text: edit(26, 26, `  body: '{"ids": [{{request_id}}], "x": {{"a": 1}}}'`),
			check: func(t *testing.T, f *File) {
				if !strings.Contains(f.Request.Body, `{{"a": 1}}`) {
					t.Errorf("body %q", f.Request.Body)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Load(write(t, tt.text))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			tt.check(t, f)
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Fatalf("Load: %v, want an error naming the file", err)
	}
}
