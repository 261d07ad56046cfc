package locks

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/go-redsync/redsync/v4"
)

// TestClassify maps what redsync says onto hammer's outcomes: giving up is
// a lock timeout, a lock held by another or gone is not ours, a node that
// failed is an error.
func TestClassify(t *testing.T) {
	refused := &redsync.RedisError{Node: 0, Err: fmt.Errorf("dial: %w", syscall.ECONNREFUSED)}
	tests := []struct {
		name        string
		err         error
		wantGaveUp  bool
		wantNotOurs bool
	}{
		{"tries spent", redsync.ErrFailed, true, false},
		{"taken on the last try", &redsync.ErrTaken{Nodes: []int{0}}, true, true},
		{"last try out of its time", errors.Join(&redsync.RedisError{Node: 0, Err: context.DeadlineExceeded}), true, false},
		{"node refused", errors.Join(refused), false, false},
		{"key gone", errors.Join(redsync.ErrLockAlreadyExpired), false, true},
		{"gone on one node, another failed", errors.Join(redsync.ErrLockAlreadyExpired, refused), false, false},
		{"no error", nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := gaveUp(tt.err); got != tt.wantGaveUp {
				t.Errorf("gaveUp(%v) = %v, want %v", tt.err, got, tt.wantGaveUp)
			}
			if got := notOurs(tt.err); got != tt.wantNotOurs {
				t.Errorf("notOurs(%v) = %v, want %v", tt.err, got, tt.wantNotOurs)
			}
		})
	}
}
