package target

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoadInvalid breaks the valid base file one way at a time: each error
// is one line that names the file, the line and the key.
func TestLoadInvalid(t *testing.T) {
	tests := []struct {
		name string
		text string
		line int
		key  string // the error mentions it
	}{
		{name: "unknown top key", text: edit(0, 0, "extra: 1"), line: 41, key: "extra: unknown key"},
		{name: "unknown service key", text: edit(5, 5, "  port_env: PORT\n  portenv: X"), line: 6, key: "service.portenv: unknown key"},
		{name: "unknown rule key", text: edit(31, 31, "    seat: /seat\n    seats: /x"), line: 32, key: "responses[0].seats: unknown key"},
		{name: "unknown variant key", text: edit(18, 18, "  naive: {env: {STRATEGY: naive}, expect: unsafe, expected: safe}"), line: 18, key: "variants.naive.expected"},
		{name: "service and urls", text: edit(0, 0, "urls: [http://127.0.0.1:8080]"), line: 41, key: "urls: give either service"},
		{name: "neither service nor urls", text: edit(2, 13, ""), line: 1, key: "one of service"},
		{name: "empty service", text: edit(2, 13, "service:"), line: 2, key: "service: empty"},
		{name: "empty urls", text: edit(2, 13, "urls: []"), line: 2, key: "urls: empty"},
		{name: "bad url", text: edit(2, 13, "urls: [http://a:1, '127.0.0.1:8080']"), line: 2, key: "urls[1]"},
		{name: "empty command", text: edit(4, 4, "  command: []"), line: 4, key: "service.command: must be a non-empty list"},
		{name: "list for a string", text: edit(5, 5, "  port_env: [PORT]"), line: 5, key: "service.port_env: want a string, got a list"},
		{name: "mapping for a list", text: edit(4, 4, "  command:\n    prog: bin/ticketd"), line: 5, key: "service.command: want a list, got a mapping"},
		{name: "empty build", text: edit(3, 3, "  build: []"), line: 3, key: "service.build"},
		{name: "command not a list", text: edit(4, 4, "  command: bin/ticketd"), line: 4, key: "service.command: want a list, got bin/tic"},
		{name: "missing port_env", text: edit(5, 5, ""), line: 2, key: "service.port_env: required"},
		{name: "bad env name", text: edit(7, 7, `    REDIS URL: "{{redis_url}}"`), line: 7, key: "service.env.REDIS URL: not a variable name"},
		{name: "env sets the port", text: edit(7, 7, `    PORT: "9999"`), line: 7, key: "service.env.PORT: sets PORT, the variable hammer gives each replica its own port in (port_env): remove it"},
		{name: "variant env sets the port", text: edit(18, 18, "  naive: {env: {STRATEGY: naive, PORT: '1'}, expect: unsafe}"), line: 18, key: "variants.naive.env.PORT: sets PORT"},
		{name: "ready without slash", text: edit(12, 12, "  ready: healthz"), line: 12, key: "service.ready: must be a path starting with /"},
		{name: "duration without unit", text: edit(13, 13, "  ready_timeout: 20"), line: 13, key: `service.ready_timeout: "20" is not a positive duration`},
		{name: "bad request timeout", text: edit(27, 27, "  timeout: soon"), line: 27, key: "request.timeout"},
		{name: "no variants", text: edit(17, 21, "variants: {}"), line: 17, key: "variants: required"},
		{name: "variants missing", text: edit(17, 21, ""), line: 1, key: "variants: required"},
		{name: "bad expect", text: edit(18, 18, "  naive: {env: {STRATEGY: naive}, expect: maybe}"), line: 18, key: `variants.naive.expect: "maybe" is not safe or unsafe`},
		{name: "missing expect", text: edit(18, 18, "  naive: {env: {STRATEGY: naive}}"), line: 18, key: "variants.naive: expect: required"},
		{name: "bad variant name", text: edit(18, 18, "  naive/x: {expect: unsafe}"), line: 18, key: "variants.naive/x"},
		{name: "bad variant env name", text: edit(18, 18, "  naive: {env: {1X: a}, expect: unsafe}"), line: 18, key: "variants.naive.env.1X"},
		{name: "empty method", text: edit(23, 23, `  method: ""`), line: 23, key: "request.method: must be an HTTP method"},
		{name: "path without slash", text: edit(24, 24, "  path: sectors/{{sector}}"), line: 24, key: "request.path"},
		{name: "header value with CR LF", text: edit(25, 25, `  headers: {Content-Type: application/json, X-Evil: "a\r\nInjected: 1"}`), line: 25, key: `request.headers.X-Evil: the value holds the control character '\r'`},
		{name: "header value with LF", text: edit(25, 25, "  headers:\n    Content-Type: application/json\n    X-Evil: |\n      a\n      b"), line: 27, key: `request.headers.X-Evil: the value holds the control character '\n'`},
		{name: "path with LF", text: edit(24, 24, `  path: "/sectors/{{sector}}\nHost: x"`), line: 24, key: `request.path: holds the control character '\n'`},
		{name: "duplicate key", text: edit(23, 23, "  method: POST\n  method: GET"), line: 24, key: `"method" already defined at line 23`},
		{name: "no responses", text: edit(28, 36, "responses: []"), line: 28, key: "responses: required"},
		{name: "bad outcome", text: edit(34, 34, "    outcome: soldout"), line: 34, key: `responses[1].outcome: "soldout" is not one of sold, sold_out, rejected, lock_timeout`},
		{name: "sold without seat", text: edit(31, 31, ""), line: 29, key: "responses[0].seat: required"},
		{name: "seat not a pointer", text: edit(31, 31, "    seat: seat"), line: 31, key: "responses[0].seat: \"seat\" is not a JSON pointer"},
		{name: "bad pointer escape", text: edit(31, 31, "    seat: /se~2at"), line: 31, key: "responses[0].seat"},
		{name: "seat on sold_out", text: edit(34, 34, "    outcome: sold_out\n    seat: /seat"), line: 35, key: "responses[1].seat: only a rule with outcome sold"},
		{name: "json without equals", text: edit(33, 33, "    json: {pointer: /error}"), line: 33, key: "responses[1].json: equals: required"},
		{name: "json equals yaml null", text: edit(33, 33, "    json: {pointer: /error, equals: ~}"), line: 33, key: "responses[1].json.equals: null"},
		{name: "json bad pointer", text: edit(33, 33, "    json: {pointer: error, equals: x}"), line: 33, key: "responses[1].json.pointer"},
		{name: "missing status", text: edit(35, 36, "  - outcome: rejected"), line: 35, key: "responses[2].status: required"},
		{name: "status not a number", text: edit(35, 35, "  - status: conflict"), line: 35, key: "responses[2].status: want an integer, got conflict"},
		{name: "status out of range", text: edit(35, 35, "  - status: 2000"), line: 35, key: "responses[2].status: must be an HTTP status code (100-599)"},
		{name: "missing ledger", text: edit(39, 39, ""), line: 38, key: "truth.ledger: required"},
		{name: "unknown placeholder", text: edit(26, 26, `  body: '{"id": "{{requestid}}"}'`), line: 26, key: "request.body: unknown placeholder {{requestid}}"},
		{name: "placeholder of another field", text: edit(16, 16, "  INSERT INTO sectors VALUES ({{sector}}, {{port}}, 1);"), line: 14, key: "setup: {{port}} is not expanded in this field"},
		{name: "placeholder in command", text: edit(4, 4, `  command: [bin/ticketd, "{{port}}"]`), line: 4, key: "service.command[1]: {{port}}: no placeholder is expanded"},
		{name: "spaced placeholder", text: edit(7, 7, `    REDIS_URL: "{{ redis_url }}"`), line: 7, key: "service.env.REDIS_URL: write {{redis_url}} without spaces"},
		{name: "request id in lock key", text: edit(37, 37, `lock_key: "{{key_prefix}}{{request_id}}"`), line: 37, key: "lock_key: {{request_id}} is not expanded"},
		{name: "fixed lock key, prefixed service", text: edit(37, 37, `lock_key: "seatd:lock:{{sector}}"`), line: 37, key: "lock_key: a fixed key name needs a service whose keys all have fixed names, but variant naive is handed {{key_prefix}}"},
		{name: "prefixed lock key, fixed service", text: edit(10, 10, ""), line: 36, key: "lock_key: starts with {{key_prefix}}, but variant naive is not handed {{key_prefix}}"},
		{name: "prefix inside the lock key", text: edit(37, 37, `lock_key: "seatd:{{key_prefix}}lock"`), line: 37, key: "lock_key: {{key_prefix}} must start the key"},
		{name: "fixed lock key of urls", text: strings.Replace(edit(2, 13, "urls: [http://127.0.0.1:8080]"), `"{{key_prefix}}lock:`, `"seatd:lock:`, 1), line: 26, key: "lock_key: must start with {{key_prefix}}: the replicas listed in urls share their Redis"},
		{name: "own PGOPTIONS without the schema", text: edit(9, 9, "    PGOPTIONS: -c statement_timeout=5s"), line: 9, key: "service.env.PGOPTIONS: replaces hammer's PGOPTIONS"},
		{name: "variant PGOPTIONS without the schema", text: strings.Replace(edit(9, 9, ""), "{env: {STRATEGY: naive}", "{env: {STRATEGY: naive, PGOPTIONS: '-c x=y'}", 1), line: 17, key: "variants.naive.env.PGOPTIONS: replaces hammer's PGOPTIONS"},
		{name: "key prefix in truth", text: edit(40, 40, "  sector: SELECT 1 FROM {{key_prefix}}"), line: 40, key: "truth.sector: {{key_prefix}}"},
		{name: "request id in variant env", text: edit(18, 18, "  naive: {env: {ID: '{{request_id}}'}, expect: unsafe}"), line: 18, key: "variants.naive.env.ID: {{request_id}}"},
		{name: "syntax error", text: edit(26, 26, `  body: '{"id": 1`), line: 26, key: "target.yaml"},
		{name: "not a mapping", text: "- a\n- b\n", line: 1, key: "must be a mapping"},
		{name: "two documents", text: base + "---\nname: x\n", line: 0, key: "one YAML document"},
		{name: "empty file", text: "# nothing\n", line: 0, key: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, tt.text)
			_, err := Load(path)
			if err == nil {
				t.Fatalf("Load succeeded; want an error at line %d about %q", tt.line, tt.key)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q spans several lines", msg)
			}
			prefix := path + ":"
			if tt.line > 0 {
				prefix = fmt.Sprintf("%s:%d: ", path, tt.line)
			}
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tt.key) {
				t.Errorf("error %q\nwant it to start with %q and hold %q", msg, prefix, tt.key)
			}
		})
	}
}
