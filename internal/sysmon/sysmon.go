// Package sysmon holds the environment a hammer worker process starts with
// so that the Go runtime's system monitor stays out of the server's way.
//
// The runtime's monitor thread (sysmon) checks the scheduler every 20 µs
// to 10 ms. When it finds every P idle it sleeps until woken, and the next
// system call wakes it, after which it polls at 20 µs for a millisecond
// or more. A worker on a host it shares with the servers under test, with
// one P (see the driver's share of the CPUs) and every connection waiting
// on the server, goes idle and wakes thousands of times a second: each
// time its monitor wakes too, and its polls take the cores the server
// needs. GODEBUG=schedtrace set to any interval is the runtime's only
// switch that keeps the monitor from that sleep (it then backs off to
// polls of 10 ms when nothing needs it); the interval hammer sets, the
// longest the runtime takes, prints a line of the scheduler's state only
// on a host whose monotonic clock has passed 24.8 days, and then once per
// 24.8 days.
package sysmon

import (
	"slices"
	"strings"
)

// Setting is what Env adds to a worker's GODEBUG: the scheduler trace at
// its longest interval, 2^31 − 1 ms.
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
			if strings.HasPrefix(strings.TrimSpace(kv), "schedtrace=") {
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
