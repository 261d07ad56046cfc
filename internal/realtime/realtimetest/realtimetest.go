// Package realtimetest tells tests whether this process may have a
// real-time burst (package realtime), which needs CAP_SYS_NICE on Linux.
// Without it, tests of the burst skip, unless HAMMER_REQUIRE_REALTIME is
// set (as .ci/run sets it): then they fail, so that CI never skips them
// silently. make test does not set it, so that it passes where tests run
// without the privilege (root in a container without CAP_SYS_NICE).
package realtimetest

import (
	"os"
	"testing"

	"github.com/hammer-load/hammer/internal/realtime"
)

// EnvRequire, when set, turns a missing privilege into a failure.
const EnvRequire = "HAMMER_REQUIRE_REALTIME"

// Supported reports whether the process may have a real-time burst; when
// it may not and EnvRequire is set, it fails t.
func Supported(t testing.TB) bool {
	t.Helper()
	ok := realtime.Supported()
	if !ok && os.Getenv(EnvRequire) != "" {
		t.Fatalf("no real-time scheduling here (it needs CAP_SYS_NICE on Linux), and %s is set", EnvRequire)
	}
	return ok
}
