package bench

import (
	"bufio"
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
		Go: runtime.Version(), Hammer: hammerVersion(b.cfg.Hammer)}
	v, _ := b.stack.Describe(ctx)
	m.Redis, m.PostgreSQL = orUnknown(v.Redis), orUnknown(v.PostgreSQL)
	if v.Fsync != "" {
		m.PostgreSQL += ", fsync " + v.Fsync
	}
	m.Pgbench = toolVersion(ctx, b.tools.pgbench)
	m.RedisBenchmark = toolVersion(ctx, b.tools.redisBenchmark)
	return m
}

// hammerVersion is the binary's path and the commit it was built from,
// from the build information Go stamps into it.
func hammerVersion(path string) string {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return path
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = " with uncommitted changes"
		}
	}
	if rev == "" {
		return path
	}
	return path + " (commit " + rev + dirty + ")"
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
