package main

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composePath is the repository's docker-compose.yml, from cmd/hammer.
const composePath = "../../docker-compose.yml"

// composeFile is the part of the Compose specification docker-compose.yml
// uses. It is decoded with unknown fields refused, so a misspelt key fails;
// a key the file starts to use needs a field here.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	// Extensions are the top-level x- keys (anchors for the services).
	Extensions map[string]any `yaml:",inline"`
}

// composeService is one service of the file.
type composeService struct {
	Image       string             `yaml:"image"`
	Build       composeBuild       `yaml:"build"`
	Command     []string           `yaml:"command"`
	Profiles    []string           `yaml:"profiles"`
	Ports       []string           `yaml:"ports"`
	Healthcheck *composeHealth     `yaml:"healthcheck"`
	Environment map[string]*string `yaml:"environment"` // nil: passed through from the shell
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	NetworkMode string   `yaml:"network_mode"`
	User        string   `yaml:"user"`
	WorkingDir  string   `yaml:"working_dir"`
	Volumes     []string `yaml:"volumes"`
	ReadOnly    bool     `yaml:"read_only"`
	Tmpfs       []string `yaml:"tmpfs"`
	Init        bool     `yaml:"init"`
}

// composeHealth is a service's healthcheck.
type composeHealth struct {
	Test     []string `yaml:"test"`
	Interval string   `yaml:"interval"`
	Timeout  string   `yaml:"timeout"`
	Retries  int      `yaml:"retries"`
}

// composeBuild is a service's build: a context alone (`build: .`) or a
// mapping with a context and a Dockerfile.
type composeBuild struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
}

// UnmarshalYAML accepts both forms of build.
func (b *composeBuild) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		b.Context = n.Value
		return nil
	}
	type plain composeBuild
	return n.Decode((*plain)(b))
}

// decodeCompose decodes the file strictly.
func decodeCompose(text string) (*composeFile, error) {
	dec := yaml.NewDecoder(bytes.NewReader([]byte(text)))
	dec.KnownFields(true)
	var f composeFile
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	for k := range f.Extensions {
		if !strings.HasPrefix(k, "x-") {
			return nil, fmt.Errorf("unknown top-level key %q (extensions start with x-)", k)
		}
	}
	return &f, nil
}

// composeProblems returns what stops the file's agents from racing across
// containers as its header says.
func composeProblems(f *composeFile, text string) []string {
	coord, okc := f.Services["coordinator"]
	agent, oka := f.Services["agent"]
	if !okc || !oka {
		return []string{"no coordinator and agent services"}
	}
	var out []string
	if !slices.Equal(coord.Profiles, agent.Profiles) || len(coord.Profiles) == 0 {
		out = append(out, fmt.Sprintf("coordinator's profiles %v and the agent's %v differ or are empty", coord.Profiles, agent.Profiles))
	}
	if coord.Build != agent.Build || coord.Build.Context != "." || coord.Image != agent.Image {
		out = append(out, fmt.Sprintf("coordinator and agent are not one build of the root Dockerfile: %+v %q, %+v %q", coord.Build, coord.Image, agent.Build, agent.Image))
	}
	cc, ac := parseArgs(coord.Command), parseArgs(agent.Command)
	if !slices.Contains([]string{"run", "load", "gate"}, cc.sub) || ac.sub != "agent" {
		out = append(out, fmt.Sprintf("coordinator runs hammer %q and the agent hammer %q", cc.sub, ac.sub))
	}
	_, lport, err := net.SplitHostPort(cc.flags["listen"])
	if host, _, _ := net.SplitHostPort(cc.flags["listen"]); err != nil || !reachable(host) {
		out = append(out, fmt.Sprintf("coordinator's --listen %q is not an address other containers reach", cc.flags["listen"]))
	}
	if jhost, jport, err := net.SplitHostPort(ac.flags["join"]); err != nil || jhost != "coordinator" || jport != lport {
		out = append(out, fmt.Sprintf("agent joins %q, the coordinator listens on port %s of the service coordinator", ac.flags["join"], lport))
	}
	for name, s := range map[string]composeService{"coordinator": coord, "agent": agent} {
		out = append(out, composeToken(name, s)...)
		if !s.ReadOnly || !slices.Contains(s.Tmpfs, "/tmp") {
			out = append(out, name+": want read_only with a tmpfs on /tmp")
		}
		if s.User == "root" || strings.HasPrefix(s.User, "0") {
			out = append(out, name+": runs as root")
		}
	}
	if cc.flags["stack"] == "external" {
		out = append(out, composeServers(f, coord)...)
	}
	out = append(out, composeResults(coord, cc)...)
	return append(out, composeHeader(text, cc.flags["agents"])...)
}

// reachable reports whether a listener on host is reachable from other
// containers: not a loopback address.
func reachable(host string) bool {
	ip := net.ParseIP(host)
	return host != "" && host != "localhost" && (ip == nil || !ip.IsLoopback())
}

// composeToken: HAMMER_TOKEN comes from the shell, is not a literal, and is
// not required by interpolation (which would break every command of the
// file, whatever the profile); no secret is an argument.
func composeToken(name string, s composeService) []string {
	var out []string
	tok, ok := s.Environment["HAMMER_TOKEN"]
	switch {
	case !ok:
		out = append(out, name+": no HAMMER_TOKEN")
	case tok != nil && strings.Contains(*tok, "?"):
		out = append(out, name+": HAMMER_TOKEN "+*tok+" is required at interpolation: Compose interpolates every service, so `docker compose up` would fail without it")
	case tok != nil && !regexp.MustCompile(`^\$\{?HAMMER_TOKEN\}?$`).MatchString(*tok):
		out = append(out, name+": HAMMER_TOKEN is a literal, not the shell's")
	}
	for _, flag := range []string{"token", "redis-url", "pg-url"} {
		if _, ok := parseArgs(s.Command).flags[flag]; ok {
			out = append(out, fmt.Sprintf("%s has --%s in its command", name, flag))
		}
	}
	return out
}

// composeServers: the coordinator's URLs name the file's redis and postgres
// services, which it waits for, with postgres' user, password and database.
func composeServers(f *composeFile, coord composeService) []string {
	var out []string
	for _, v := range []struct{ env, service string }{{"HAMMER_REDIS_URL", "redis"}, {"HAMMER_PG_URL", "postgres"}} {
		raw := coord.Environment[v.env]
		if raw == nil {
			out = append(out, "coordinator with --stack external has no "+v.env)
			continue
		}
		u, err := url.Parse(*raw)
		if err != nil || u.Hostname() != v.service {
			out = append(out, fmt.Sprintf("coordinator's %s %q does not name the service %s", v.env, *raw, v.service))
			continue
		}
		if coord.DependsOn[v.service].Condition != "service_healthy" {
			out = append(out, "coordinator does not wait for "+v.service+" to be healthy")
		}
		if v.service == "postgres" {
			pw, _ := u.User.Password()
			e := f.Services["postgres"].Environment
			if e["POSTGRES_USER"] == nil || e["POSTGRES_PASSWORD"] == nil || e["POSTGRES_DB"] == nil ||
				*e["POSTGRES_USER"] != u.User.Username() || *e["POSTGRES_PASSWORD"] != pw || "/"+*e["POSTGRES_DB"] != u.Path {
				out = append(out, fmt.Sprintf("coordinator's %s is not postgres' user, password and database", v.env))
			}
		}
	}
	return out
}

// composeResults: the coordinator's results folder (its --out, or hammer's
// default results/<run-id> under its working_dir) lies on a bind mount.
func composeResults(coord composeService, cc containerArgs) []string {
	out := cc.flags["out"]
	if out == "" {
		out = path.Join(coord.WorkingDir, "results", "run-id")
	}
	if !path.IsAbs(out) {
		return []string{fmt.Sprintf("coordinator's results folder %q is relative to an unknown working_dir", out)}
	}
	for _, v := range coord.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && strings.HasPrefix(parts[0], ".") && strings.HasPrefix(out+"/", path.Clean(parts[1])+"/") &&
			!slices.Contains(parts[2:], "ro") {
			return nil
		}
	}
	return []string{fmt.Sprintf("coordinator's results folder %s is on no writable bind mount", out)}
}

// composeHeader: the header's commands run the coordinator with
// --use-aliases (or the agents cannot resolve it) and as many agents as it
// scales the agent service to, as many as the coordinator's own command.
func composeHeader(text, agents string) []string {
	var header strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if c, ok := strings.CutPrefix(line, "#"); ok {
			header.WriteString(c + "\n")
		}
	}
	h := header.String()
	var out []string
	run := regexp.MustCompile(`docker compose run ([^\n]*\\\n)*[^\n]*`).FindString(h)
	if !strings.Contains(run, "--use-aliases") || !strings.Contains(run, " coordinator") {
		out = append(out, fmt.Sprintf("the header's docker compose run does not run coordinator with --use-aliases: %q", run))
	}
	scale := regexp.MustCompile(`--scale agent=(\d+)`).FindStringSubmatch(h)
	n := regexp.MustCompile(`--agents (\d+)`).FindStringSubmatch(run)
	if scale == nil || n == nil || scale[1] != n[1] || n[1] != agents {
		out = append(out, fmt.Sprintf("the header's --scale agent (%v) and --agents (%v) differ from each other or from the coordinator's --agents %s", scale, n, agents))
	}
	return out
}

// readCompose reads docker-compose.yml.
func readCompose(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(composePath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDeployComposeAgents decodes docker-compose.yml strictly and checks its
// agents race across containers.
func TestDeployComposeAgents(t *testing.T) {
	text := readCompose(t)
	f, err := decodeCompose(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range composeProblems(f, text) {
		t.Error(p)
	}
}

// TestDeployComposeChecksCatchMistakes breaks docker-compose.yml and checks that
// decoding or the checks name each mistake.
func TestDeployComposeChecksCatchMistakes(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"typo", `    command: ["agent"`, `    comand: ["agent"`, "field comand not found"},
		{"typo at the top", "\nservices:\n", "\nservice:\n", `unknown top-level key "service"`},
		{"join another host", `"--join", "coordinator:7070"`, `"--join", "coordinater:7070"`, `agent joins "coordinater:7070"`},
		{"join another port", `"--join", "coordinator:7070"`, `"--join", "coordinator:7071"`, `agent joins "coordinator:7071"`},
		{"loopback", `"--listen", "0.0.0.0:7070"`, `"--listen", "127.0.0.1:7070"`, "not an address other containers reach"},
		{"token literal", "    environment:\n      HAMMER_TOKEN:\n    read_only", "    environment:\n      HAMMER_TOKEN: s3cret\n    read_only", "agent: HAMMER_TOKEN is a literal"},
		{"token required", "    environment:\n      HAMMER_TOKEN:\n    read_only", "    environment:\n      HAMMER_TOKEN: ${HAMMER_TOKEN:?set it}\n    read_only", "required at interpolation"},
		{"token in args", `["agent", "--join"`, `["agent", "--token", "s3cret", "--join"`, "agent has --token in its command"},
		{"wrong password", "postgres://hammer:hammer-pw@postgres:5432", "postgres://hammer:pw@postgres:5432", "not postgres' user, password and database"},
		{"results not mounted", "    working_dir: /\n", "    working_dir: /srv\n", "is on no writable bind mount"},
		{"no aliases", "docker compose run --rm --use-aliases coordinator", "docker compose run --rm coordinator", "does not run coordinator with --use-aliases"},
		{"scale differs", "--scale agent=4", "--scale agent=3", "differ from each other"},
		{"other build", "    profiles: [agents]\n    build: .\n    command: [\"agent\"", "    profiles: [agents]\n    build: ./examples\n    command: [\"agent\"", "not one build of the root Dockerfile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := readCompose(t)
			if n := strings.Count(text, tt.old); n != 1 {
				t.Fatalf("docker-compose.yml holds %q %d times, want once", tt.old, n)
			}
			text = strings.Replace(text, tt.old, tt.new, 1)
			f, err := decodeCompose(text)
			var problems []string
			if err != nil {
				problems = []string{err.Error()}
			} else {
				problems = composeProblems(f, text)
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("no problem names %q; got %q", tt.want, problems)
			}
		})
	}
}
