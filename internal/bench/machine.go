package bench

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Machine is what the results were measured on, for BENCHMARKS.md to quote.
type Machine struct {
	Cores                   int
	CPU, Kernel, Go         string
	Hammer                  string
	Redis, PostgreSQL       string
	Pgbench, RedisBenchmark string
}

// describe asks the machine, the servers and the tools what they are;
// what cannot be had reads "unknown".
func (b *Bench) describe(ctx context.Context) Machine {
	m := Machine{Cores: runtime.NumCPU(), CPU: cpuModel(), Kernel: firstLine(readFile("/proc/sys/kernel/osrelease")),
		Go: runtime.Version(), Hammer: hammerVersion(ctx, b.cfg.Hammer)}
	v, _ := b.stack.Describe(ctx)
	m.Redis, m.PostgreSQL = orUnknown(v.Redis), orUnknown(v.PostgreSQL)
	if v.Fsync != "" {
		m.PostgreSQL += ", fsync " + v.Fsync
	}
	m.Pgbench = toolVersion(ctx, b.tools.pgbench)
	m.RedisBenchmark = toolVersion(ctx, b.tools.redisBenchmark)
	return m
}

// hammerVersion is the binary's path and the commit it was built from:
// from the build information Go stamps into it, else (a build with
// -buildvcs=false) from the git checkout the bench runs in, which
// scripts/bench.sh builds hammer from.
func hammerVersion(ctx context.Context, path string) string {
	var rev string
	var dirty bool
	if info, err := buildinfo.ReadFile(path); err == nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if rev == "" {
		out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
		if err != nil {
			return path
		}
		status, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output()
		rev, dirty = strings.TrimSpace(string(out)), err != nil || len(bytes.TrimSpace(status)) > 0
	}
	rev = rev[:min(len(rev), 12)]
	if dirty {
		return path + " (commit " + rev + " with uncommitted changes)"
	}
	return path + " (commit " + rev + ")"
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	sc := bufio.NewScanner(strings.NewReader(readFile("/proc/cpuinfo")))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// toolVersion is the first line of `tool --version`.
func toolVersion(ctx context.Context, tool string) string {
	out, err := exec.CommandContext(ctx, tool, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return firstLine(string(out))
}

func readFile(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return string(b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return orUnknown(strings.TrimSpace(line))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
