// Package realtimetest tells tests whether this process may have a
// real-time burst (realtime.Supported: Linux, CAP_SYS_NICE, real-time
// throttling on). Without one, tests of the burst skip, unless
// HAMMER_REQUIRE_REALTIME=1 (as .ci/run sets it): then they fail, so that
// CI never skips them silently. make test does not set it, so that it
// passes where tests run without the privilege (root in a container
// without CAP_SYS_NICE).
//
// Policies (Linux) reads every thread's scheduling policy, for tests that
// check which threads a burst changed.
package realtimetest

import (
	"os"
	"testing"

	"github.com/hammer-load/hammer/internal/realtime"
)

// EnvRequire set to 1 turns a missing burst into a failure.
const EnvRequire = "HAMMER_REQUIRE_REALTIME"

// Supported reports whether the process may have a real-time burst; when
// it may not and EnvRequire is 1, it fails t.
func Supported(t testing.TB) bool {
	t.Helper()
	ok := realtime.Supported()
	if !ok && os.Getenv(EnvRequire) == "1" {
		t.Fatalf("no real-time burst here (realtime.Supported: Linux, CAP_SYS_NICE, real-time throttling on), and %s=1", EnvRequire)
	}
	return ok
}

// Need skips t where the process may not have a real-time burst, or fails
// it when EnvRequire is 1.
func Need(t testing.TB) {
	t.Helper()
	if !Supported(t) {
		t.Skipf("no real-time burst here (it needs Linux, CAP_SYS_NICE and real-time throttling on); %s=1 makes this a failure", EnvRequire)
	}
}
