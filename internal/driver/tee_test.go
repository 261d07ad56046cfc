package driver

import (
	"reflect"
	"testing"

	"github.com/hammer-load/hammer/history"
)

// TestTee: every tracker is told every event of a race, in the order
// given; a nil tracker and a hook a tracker leaves out are skipped.
func TestTee(t *testing.T) {
	var got []string
	track := func(name string, withFault bool) func(Options) Hooks {
		return func(o Options) Hooks {
			got = append(got, name+" track "+o.Scenario.Name)
			h := Hooks{
				Go:      func(int64) { got = append(got, name+" go") },
				Attempt: func(a history.Attempt) { got = append(got, name+" attempt "+a.RequestID) },
				Done:    func() { got = append(got, name+" done") },
			}
			if withFault {
				h.Fault = func(history.FaultEvent) { got = append(got, name+" fault") }
				h.Strike = func(history.FaultEvent) { got = append(got, name+" strike") }
			}
			return h
		}
	}
	var o Options
	o.Scenario.Name = "r"
	h := Tee(track("a", false), nil, track("b", true))(o)
	h.Go(1)
	h.Attempt(history.Attempt{RequestID: "x"})
	h.Strike(history.FaultEvent{})
	h.Fault(history.FaultEvent{})
	h.Done()
	want := []string{"a track r", "b track r", "a go", "b go", "a attempt x", "b attempt x", "b strike", "b fault", "a done", "b done"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	if none := Tee(nil)(o); none.Go != nil || none.Attempt != nil || none.Fault != nil || none.Strike != nil {
		t.Error("Tee of no tracker hands out hooks")
	}
}
