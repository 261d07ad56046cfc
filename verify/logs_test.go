package verify

import (
	"strings"
	"testing"

	"github.com/hammer-load/hammer/history"
)

// TestUnmatchedQuotesLog: a run unknown because answers matched no
// response rule quotes the last words of the replica that gave the first
// such answer, and names its log.
func TestUnmatchedQuotesLog(t *testing.T) {
	in := Input{
		Seats: 1,
		Attempts: []history.Attempt{{
			Run: "naive", RequestID: "p0-g0-a0", Outcome: history.Unknown, Status: 500, Replica: "r1 127.0.0.1:4000",
			Err: "status 500 matched no response rule: {}", Invoke: 1, Complete: 2,
		}},
		Sector:     &history.Sector{Run: "naive", ID: 1, Capacity: 1, Available: 1},
		Incomplete: nil,
		ReplicaLogs: []history.ReplicaLog{
			{Replica: 0, Last: []string{"listening"}, File: "logs/naive.replica-0.log"},
			{Replica: 1, Last: []string{`error: relation "sales" does not exist`}, File: "logs/naive.replica-1.log"},
		},
	}
	v := Check(in)
	if v.Status != Unknown {
		t.Fatalf("verdict %s, want unknown", v.Status)
	}
	want := `; replica 1 logged last: error: relation "sales" does not exist (logs/naive.replica-1.log)`
	if got := strings.Join(v.Undetermined, "\n"); !strings.Contains(got, want) {
		t.Errorf("undetermined:\n%s\nwant it to hold %q", got, want)
	}
}
