package target

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
	"go.yaml.in/yaml/v3"
)

// replicas checks that the file gives exactly one of service and urls,
// and checks the one it gives.
func (d *doc) replicas(raw rawFile) (*Service, []string, error) {
	hasService, hasURLs := d.has("service"), d.has("urls")
	switch {
	case hasService && hasURLs:
		return nil, nil, d.errAt([]string{"urls"}, "give either service (hammer starts the replicas) or urls (replicas already running), not both")
	case hasURLs:
		urls, err := d.urls(raw.URLs)
		return nil, urls, err
	case hasService && raw.Service != nil:
		s, err := d.service(raw.Service)
		return s, nil, err
	case hasService:
		return nil, nil, d.errAt([]string{"service"}, "empty: command, port_env and ready are required")
	}
	return nil, nil, d.errAt(nil, "one of service (how to start a replica) or urls (replicas already running) is required")
}

// urls checks the base URLs of running replicas and trims their trailing
// slashes.
func (d *doc) urls(raw []string) ([]string, error) {
	if len(raw) == 0 {
		return nil, d.errAt([]string{"urls"}, "empty: give the base URL of each replica")
	}
	out := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, d.errAt([]string{"urls", index(i)}, "%q is not a base URL such as http://127.0.0.1:8080", s)
		}
		out[i] = strings.TrimRight(s, "/")
	}
	return out, nil
}

// service checks how to start a replica.
func (d *doc) service(raw *rawService) (*Service, error) {
	at := func(key string) []string { return []string{"service", key} }
	if d.has("service", "build") && !validArgv(raw.Build) {
		return nil, d.errAt(at("build"), "must be a non-empty list of arguments, the program first")
	}
	if !validArgv(raw.Command) {
		return nil, d.needErr(at("command"), "a non-empty list of arguments, the program first")
	}
	if !validEnvName(raw.PortEnv) {
		return nil, d.needErr(at("port_env"), "the name of the variable that receives the replica's port")
	}
	if err := d.envNames(raw.Env, "service", "env"); err != nil {
		return nil, err
	}
	if err := d.portUnset(raw.Env, raw.PortEnv, "service", "env"); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(raw.Ready, "/") {
		return nil, d.needErr(at("ready"), "a path starting with / that answers 200 once the replica is ready")
	}
	timeout, err := d.duration(raw.ReadyTimeout, DefaultReadyTimeout, at("ready_timeout"))
	if err != nil {
		return nil, err
	}
	return &Service{
		Build: raw.Build, Command: raw.Command, PortEnv: raw.PortEnv, Env: raw.Env,
		Ready: raw.Ready, ReadyTimeout: timeout,
	}, nil
}

// portUnset checks that env, at path, leaves port (the variable each
// replica gets its own port in) to hammer: it would override hammer's
// with anything but the placeholder of that same port.
func (d *doc) portUnset(env map[string]string, port string, path ...string) error {
	placeholder := "{{" + VarPort + "}}"
	if v, ok := env[port]; ok && v != placeholder {
		return d.errAt(extend(path, port), "sets %s, the variable hammer gives each replica its own port in (port_env): remove it, or give it %s", port, placeholder)
	}
	return nil
}

// validArgv reports whether argv names a program.
func validArgv(argv []string) bool { return len(argv) > 0 && argv[0] != "" }

// validEnvName reports whether s can name an environment variable: a
// letter or an underscore, then letters, digits or underscores.
func validEnvName(s string) bool { return isName(s) }

// envNames checks the variable names of the environment at path.
func (d *doc) envNames(env map[string]string, path ...string) error {
	for _, k := range d.keys(path...) {
		if !validEnvName(k) {
			return d.errAt(extend(path, k), "not a variable name (letters, digits and _, not starting with a digit)")
		}
	}
	return nil
}

// duration parses the duration s of the field at path; def when s is empty.
func (d *doc) duration(s string, def time.Duration, path []string) (time.Duration, error) {
	if s == "" && !d.has(path...) {
		return def, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return 0, d.errAt(path, "%q is not a positive duration such as 10s or 500ms", s)
	}
	return v, nil
}

// variants checks the variants and returns them in file order.
func (d *doc) variants(raw map[string]rawVariant) ([]Variant, error) {
	if len(raw) == 0 {
		return nil, d.errAt([]string{"variants"}, "required: at least one variant (its env and expect: safe or unsafe)")
	}
	var out []Variant
	for _, name := range d.keys("variants") {
		v, at := raw[name], []string{"variants", name}
		if !validVariantName(name) {
			return nil, d.errAt(at, "a variant name is letters, digits, '-', '_' and '.', starting with a letter or digit")
		}
		if !d.has(extend(at, "expect")...) {
			return nil, d.errAt(at, "expect: required (safe or unsafe)")
		}
		if v.Expect != scenarios.Safe && v.Expect != scenarios.Unsafe {
			return nil, d.errAt(extend(at, "expect"), "%q is not %s or %s", v.Expect, scenarios.Safe, scenarios.Unsafe)
		}
		if err := d.envNames(v.Env, "variants", name, "env"); err != nil {
			return nil, err
		}
		out = append(out, Variant{Name: name, Env: v.Env, Expect: v.Expect})
	}
	return out, nil
}

// validVariantName reports whether s can name a variant: it becomes part
// of the names of runs.
func validVariantName(s string) bool {
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || (i > 0 && strings.ContainsRune("-_.", r))
		if !ok {
			return false
		}
	}
	return s != ""
}

// controlChar returns the first control character of s other than a tab,
// which no request line or header value may hold: CR and LF would end
// the line, and Go's HTTP client refuses every request that holds one.
func controlChar(s string) (rune, bool) {
	for _, r := range s {
		if (r < 0x20 && r != '\t') || r == 0x7f {
			return r, true
		}
	}
	return 0, false
}

// request checks the request of one attempt.
func (d *doc) request(raw rawRequest) (RequestSpec, error) {
	at := func(key string) []string { return []string{"request", key} }
	if !validToken(raw.Method) {
		return RequestSpec{}, d.needErr(at("method"), "an HTTP method such as POST")
	}
	if !strings.HasPrefix(raw.Path, "/") {
		return RequestSpec{}, d.needErr(at("path"), "a path starting with /")
	}
	if c, ok := controlChar(raw.Path); ok {
		return RequestSpec{}, d.errAt(at("path"), "holds the control character %q: a path is one line of printable text", c)
	}
	for _, k := range d.keys("request", "headers") {
		if !validToken(k) {
			return RequestSpec{}, d.errAt([]string{"request", "headers", k}, "not a header name")
		}
		if c, ok := controlChar(raw.Headers[k]); ok {
			return RequestSpec{}, d.errAt([]string{"request", "headers", k}, "the value holds the control character %q: a header value is one line (no CR or LF)", c)
		}
	}
	timeout, err := d.duration(raw.Timeout, DefaultRequestTimeout, at("timeout"))
	if err != nil {
		return RequestSpec{}, err
	}
	return RequestSpec{Method: raw.Method, Path: raw.Path, Headers: raw.Headers, Body: raw.Body, Timeout: timeout}, nil
}

// validToken reports whether s is an HTTP token (RFC 9110), as methods
// and header names are.
func validToken(s string) bool {
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
		if !ok {
			return false
		}
	}
	return s != ""
}

// rules checks the response rules.
func (d *doc) rules(rules []Rule) error {
	if len(rules) == 0 {
		return d.errAt([]string{"responses"}, "required: at least one rule (status and outcome)")
	}
	for i, r := range rules {
		if err := d.rule(r, []string{"responses", index(i)}); err != nil {
			return err
		}
	}
	return nil
}

// rule checks one response rule, at path.
func (d *doc) rule(r Rule, at []string) error {
	if r.Status < 100 || r.Status > 599 {
		return d.needErr(extend(at, "status"), "an HTTP status code (100-599)")
	}
	outcomes := []history.Outcome{history.Sold, history.SoldOut, history.Rejected, history.LockTimeout}
	if !slices.Contains(outcomes, r.Outcome) {
		return d.errAt(extend(at, "outcome"), "%q is not one of sold, sold_out, rejected, lock_timeout", r.Outcome)
	}
	switch {
	case r.Outcome == history.Sold && r.Seat == "":
		return d.errAt(extend(at, "seat"), "required for outcome sold: the JSON pointer to the seat number, such as /seat")
	case r.Outcome != history.Sold && d.has(extend(at, "seat")...):
		return d.errAt(extend(at, "seat"), "only a rule with outcome sold reads a seat")
	case r.Seat != "":
		if err := checkPointer(r.Seat); err != nil {
			return d.errAt(extend(at, "seat"), "%v", err)
		}
	}
	if r.JSON == nil {
		if d.has(extend(at, "json")...) {
			return d.errAt(extend(at, "json"), "empty: pointer and equals are required")
		}
		return nil
	}
	return d.condition(extend(at, "json"))
}

// condition checks the json condition of a rule, at path.
func (d *doc) condition(at []string) error {
	equals := d.lookup(extend(at, "equals"))
	if equals == nil {
		return d.errAt(at, "equals: required (the text the field must hold)")
	}
	if equals.Tag == "!!null" {
		return d.errAt(extend(at, "equals"), "null: write 'null' in quotes to match a JSON null")
	}
	val := d.lookup(extend(at, "pointer"))
	if val == nil || val.Value == "" {
		return d.errAt(at, "pointer: required, such as /error")
	}
	if err := checkPointer(val.Value); err != nil {
		return d.errAt(extend(at, "pointer"), "%v", err)
	}
	return nil
}

// checkPlaceholders checks every string of the tree under n (at path):
// it may hold only the placeholders the format expands in that field,
// each written without spaces.
func (d *doc) checkPlaceholders(n *yaml.Node, path []string) error {
	return visit(n, path, func(n *yaml.Node, path []string) error {
		allowed := allowedVars(path)
		for _, p := range scan(n.Value) {
			if err := d.checkPlaceholder(p, allowed, path); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkPlaceholder checks one placeholder of the field at path.
func (d *doc) checkPlaceholder(p placeholder, allowed, path []string) error {
	var list []string
	for _, a := range allowed {
		list = append(list, "{{"+a+"}}")
	}
	switch {
	case p.spaced:
		return d.errAt(path, "write {{%s}} without spaces", p.name)
	case len(allowed) == 0:
		return d.errAt(path, "{{%s}}: no placeholder is expanded in this field", p.name)
	case !slices.Contains(allowed, p.name) && !known(p.name):
		return d.errAt(path, "unknown placeholder {{%s}} (allowed here: %s)", p.name, strings.Join(list, ", "))
	case !slices.Contains(allowed, p.name):
		return d.errAt(path, "{{%s}} is not expanded in this field (allowed here: %s)", p.name, strings.Join(list, ", "))
	}
	return nil
}

// known reports whether name is a placeholder of the format at all.
func known(name string) bool {
	return slices.Contains(envVars(), name) || slices.Contains(requestVars(), name)
}

// checkPointer checks the syntax of a JSON pointer (RFC 6901) to a field
// of a response: "/" then reference tokens split by "/", where "~" is
// only ever followed by 0 or 1.
func checkPointer(p string) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%q is not a JSON pointer: it must start with /, as /seat does", p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return fmt.Errorf("%q is not a JSON pointer: ~ must be followed by 0 (for ~) or 1 (for /)", p)
		}
	}
	return nil
}
