package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dockerInstruction is one instruction of a Dockerfile: its keyword in upper
// case and its arguments, continuation lines joined.
type dockerInstruction struct {
	cmd, args string
}

// readDockerfile returns the instructions of a Dockerfile, one stage after
// another (a FROM starts a stage).
func readDockerfile(t *testing.T, path string) []dockerInstruction {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []dockerInstruction
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue // a comment inside a continued instruction
		}
		if s, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, dockerInstruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDockerfile checks what the image promises without a Docker engine to
// build it: the builder's Go is go.mod's, the binary is static and lands on
// PATH, the runtime installs both servers, and hammer runs as an
// unprivileged user with hammer as the entrypoint and gate as the default
// command (compose services that `build: .` give only a command).
func TestDockerfile(t *testing.T) {
	ins := readDockerfile(t, filepath.Join("..", "..", "Dockerfile"))
	var froms []string
	final := map[string][]string{} // instructions of the last stage
	for _, in := range ins {
		if in.cmd == "FROM" {
			froms = append(froms, in.args)
			final = map[string][]string{}
			continue
		}
		final[in.cmd] = append(final[in.cmd], in.args)
	}
	if len(froms) != 2 {
		t.Fatalf("%d stages (%q), want a builder and a runtime", len(froms), froms)
	}
	goMod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go\s+(\S+)`).FindSubmatch(goMod)
	if goVersion == nil || !strings.HasPrefix(froms[0], "golang:"+string(goVersion[1])+"-") {
		t.Errorf("builder %q is not golang:<go.mod's Go %s>-…", froms[0], goVersion)
	}
	build := strings.Join(argsOf(ins, "RUN"), "\n")
	if !regexp.MustCompile(`CGO_ENABLED=0 go build .*-o /out/hammer \./cmd/hammer`).MatchString(build) {
		t.Errorf("no static build of ./cmd/hammer into /out/hammer in:\n%s", build)
	}
	runtime := strings.Join(final["RUN"], "\n")
	for _, pkg := range []string{"redis-server", "postgresql"} {
		if !regexp.MustCompile(`apt-get install[^\n]* ` + pkg + `\b`).MatchString(runtime) {
			t.Errorf("the runtime stage does not apt-get install %s", pkg)
		}
	}
	checks := []struct{ what, got, want string }{
		{"COPY of the binary", strings.Join(final["COPY"], "; "), "--from=build /out/hammer /usr/local/bin/hammer"},
		{"ENTRYPOINT", strings.Join(final["ENTRYPOINT"], "; "), `["hammer"]`},
		{"CMD", strings.Join(final["CMD"], "; "), `["gate"]`},
		{"USER", strings.Join(final["USER"], "; "), "10001:10001"}, // numeric: runAsNonRoot can check it; the uid deploy/ runs as
		{"WORKDIR", strings.Join(final["WORKDIR"], "; "), "/work"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("runtime %s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if !regexp.MustCompile(`useradd --uid 10001 [^\n]*\bhammer\b`).MatchString(runtime) || !strings.Contains(runtime, "chown -R hammer:hammer /work") {
		t.Errorf("the runtime stage does not create the user hammer owning /work:\n%s", runtime)
	}
}

// argsOf returns the arguments of every instruction cmd of ins.
func argsOf(ins []dockerInstruction, cmd string) []string {
	var out []string
	for _, in := range ins {
		if in.cmd == cmd && in.args != "" {
			out = append(out, in.args)
		}
	}
	return out
}

// TestDockerignore: .dockerignore keeps every package the hammer binary is
// built from (and go.mod, go.sum) in the build context.
func TestDockerignore(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, strings.TrimPrefix(line, "/"))
		}
	}
	out, err := exec.Command(goTool(t), "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", "./").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	needed := []string{"go.mod", "go.sum", "cmd/hammer/main.go"}
	for _, dir := range strings.Fields(string(out)) {
		if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
			needed = append(needed, filepath.ToSlash(rel)+"/x.go")
		}
	}
	if len(needed) < 10 {
		t.Fatalf("go list found only %v", needed)
	}
	for _, path := range needed {
		for _, p := range patterns {
			if ignored(p, path) {
				t.Errorf(".dockerignore pattern %q leaves %s out of the build context", p, filepath.Dir(path))
			}
		}
	}
	// And it does leave out what the image must not carry.
	for _, path := range []string{".git/HEAD", "results/run/summary.json", "dist/x", "bin/hammer"} {
		if !slices.ContainsFunc(patterns, func(p string) bool { return ignored(p, path) }) {
			t.Errorf(".dockerignore lets %s into the build context", path)
		}
	}
}

// ignored reports whether a .dockerignore pattern (no "!") excludes path:
// the pattern matches the path or one of its parent directories, and a
// leading **/ matches at any depth.
func ignored(pattern, path string) bool {
	parts := strings.Split(path, "/")
	for i := 1; i <= len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		if ok, _ := filepath.Match(pattern, prefix); ok {
			return true
		}
		if rest, ok := strings.CutPrefix(pattern, "**/"); ok {
			for j := 0; j < i; j++ {
				if ok, _ := filepath.Match(rest, strings.Join(parts[j:i], "/")); ok {
					return true
				}
			}
		}
	}
	return false
}
