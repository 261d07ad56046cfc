package driver

import (
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/hammer-load/hammer/history"
)

// TestSpillKeepsRecords: what an open-model race keeps on disk comes back
// whole and in order, from a file nobody else can see; a spill whose file
// failed says so instead of returning fewer records.
func TestSpillKeepsRecords(t *testing.T) {
	s, err := newSpill()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.f.Name()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spill's file is still linked at %s: %v", s.f.Name(), err)
	}
	want := []history.Attempt{
		{Run: "r", Mode: "lock-plus-update", Proc: 1, Goroutine: 2, RequestID: "p1-r7", Outcome: history.Sold, Seat: 3,
			Invoke: 10, Complete: 20, LockAcquired: 12, Token: 4, Intended: 9, Err: "x\ny", Hinted: true},
		{Run: "r", RequestID: "p0-r1", Outcome: history.Error, Err: "dial tcp: refused", Infra: history.ServerRedis, Try: 1},
	}
	prefix := []history.Attempt{{RequestID: "before"}}
	for i := range want {
		s.add(&want[i])
	}
	got, err := s.all(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, append(prefix, want...)) {
		t.Errorf("read back %+v, want %+v", got, append(prefix, want...))
	}

	broken, err := newSpill()
	if err != nil {
		t.Fatal(err)
	}
	broken.add(&want[0])
	broken.f.Close() // the disk is gone
	if _, err := broken.all(nil); err == nil {
		t.Error("a spill whose file failed read back without an error")
	}
}
