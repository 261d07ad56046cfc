package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestLockRefused: a --lock that cannot race what was asked is refused
// before anything starts, with one line and exit 2: a library in a mode
// without a lock or in fenced (no fencing token), an unknown lock, a
// library for a service, and matrix cells that cannot take theirs.
func TestLockRefused(t *testing.T) {
	dir := t.TempDir()
	matrix := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fenced := matrix("fenced.matrix", "fenced pause safe lock=redsync\n")
	noLock := matrix("nolock.matrix", "update-only none safe lock=redislock\n")
	unknown := matrix("unknown.matrix", "lock-only none safe lock=etcd\n")
	twice := matrix("twice.matrix", "lock-only pause unsafe\nlock-only pause unsafe lock=redsync\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"redsync in fenced", []string{"run", "--mode", "fenced", "--lock", "redsync"},
			"hammer run: --lock redsync hands out no fencing token, which mode fenced needs"},
		{"redislock in fenced", []string{"run", "--mode", "fenced", "--lock", "redislock", "--fault", "pause"}, "--lock redislock hands out no fencing token"},
		{"library without a lock", []string{"run", "--mode", "update-only", "--lock", "redislock"},
			"--lock redislock needs a mode that takes a lock (lock-only or lock-plus-update), not update-only"},
		{"library with a stock counter", []string{"run", "--mode", "redis-gate", "--lock", "redsync"}, "not redis-gate"},
		{"unknown lock", []string{"load", "--lock", "zookeeper"}, `--lock: unknown lock "zookeeper" (want one of hammer, redsync, redislock)`},
		{"library for a service", []string{"gate", "--lock", "redsync", "--target", "../../examples/ticketd/target.yaml"},
			"a --target service takes its own lock"},
		{"matrix cell in fenced", []string{"gate", "--matrix", fenced}, "matrix line 1: redsync hands out no fencing token"},
		{"matrix cell without a lock", []string{"gate", "--matrix", noLock}, "matrix line 1: lock=redislock needs a mode with a lock"},
		{"matrix cell with an unknown lock", []string{"gate", "--matrix", unknown}, `option "lock=etcd": unknown lock "etcd"`},
		{"--lock that makes two cells one", []string{"gate", "--matrix", twice, "--lock", "redsync"}, "--lock redsync makes two cells lock-only/pause+redsync"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failsBeforeAnything(t, stacktest.Get(t), tt.args, exitUsage, tt.want)
		})
	}
}
