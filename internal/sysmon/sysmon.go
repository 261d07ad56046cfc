// Package sysmon holds how a hammer worker process keeps the Go runtime's
// system monitor out of the way of the servers it shares the cores with:
// the environment it starts with, and its pipes in Go's poller.
//
// The runtime's monitor thread (sysmon) checks the scheduler every 20 µs
// to 10 ms. When it finds every P idle it sleeps until the next system
// call wakes it, and then polls at 20 µs until it finds them idle again.
// A worker with one P (see the driver's share of the CPUs) whose
// connections all wait on the server goes idle and busy thousands of times
// a second, and wakes its monitor and puts it back to sleep each time, on
// the cores the server needs. GODEBUG=schedtrace set to any positive
// interval is the runtime's only switch that keeps the monitor from that
// sleep: it then polls at 20 µs while it has Ps to take back from system
// calls, and backs off to 10 ms when it has none.
//
// What the setting costs:
//   - A goroutine blocked in a system call keeps its P until the monitor
//     takes it back, which at 10 ms polls is 10 to 20 ms, and with one P
//     nothing else in the worker runs meanwhile. A worker therefore reads
//     and writes its pipes through Go's poller (Pollable), where a waiting
//     goroutine parks instead.
//   - The scheduler trace it asks for prints one line to stderr once the
//     host's clock since boot passes the interval hammer sets, 2^31 − 1 ms
//     (24.86 days), and once per interval after that; and a worker that
//     crashes dumps the scheduler's state (its Ps, threads and goroutines)
//     before its panic. hammer's messages quote a worker's last line
//     (internal/tail), which passes over the trace's lines.
package sysmon

import (
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Setting is what Env adds to a worker's GODEBUG: the scheduler trace at
// the longest interval the runtime takes, 2^31 − 1 ms.
const Setting = "schedtrace=2147483647"

// Env returns env (in os.Environ's form) with Setting added to GODEBUG,
// or unchanged when GODEBUG already sets schedtrace: that setting wins,
// so GODEBUG=schedtrace=0 in hammer's environment leaves the monitor as
// Go has it. Of several GODEBUG entries the last counts, as os/exec has it.
func Env(env []string) []string {
	out := slices.Clone(env)
	for i := len(out) - 1; i >= 0; i-- {
		val, ok := strings.CutPrefix(out[i], "GODEBUG=")
		if !ok {
			continue
		}
		for kv := range strings.SplitSeq(val, ",") {
			if strings.HasPrefix(kv, "schedtrace=") { // the runtime matches keys exactly
				return out
			}
		}
		if val != "" {
			val += ","
		}
		out[i] = "GODEBUG=" + val + Setting
		return out
	}
	return append(out, "GODEBUG="+Setting)
}

// Pollable returns a file for f's descriptor in Go's poller, set
// non-blocking, when f is a pipe or a socket in blocking mode (a worker's
// stdin and stdout, as its coordinator or agent starts it); f itself
// otherwise: a terminal, whose mode other processes share, a regular file,
// or a descriptor already non-blocking, which os.NewFile put in the poller.
// f must not be used after a new file is returned.
func Pollable(f *os.File) *os.File {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	fd := -1
	if rc.Control(func(d uintptr) { fd = int(d) }) != nil || fd < 0 {
		return f
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return f
	}
	if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFIFO && kind != unix.S_IFSOCK {
		return f
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_NONBLOCK != 0 || unix.SetNonblock(fd, true) != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
