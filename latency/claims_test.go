package latency

import (
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

// TestClaimHandoffs counts a release taken by a claim already waiting as
// a handoff, and neither a lock that expired nor one taken by a claim
// that began after the release; ObserveClaims records each wait.
func TestClaimHandoffs(t *testing.T) {
	ms := func(v int64) int64 { return v * int64(time.Millisecond) }
	claims := []history.LockClaim{
		{Run: "r", Token: "a", First: ms(1), Last: ms(1), Tries: 1, Acquired: ms(1), Released: ms(20)},
		{Run: "r", Token: "b", First: ms(2), Last: ms(25), Tries: 5, Acquired: ms(25), Expired: ms(40)},
		{Run: "r", Token: "c", First: ms(30), Last: ms(45), Tries: 2, Acquired: ms(45), Released: ms(50)},
		{Run: "r", Token: "d", First: ms(60), Last: ms(60), Tries: 1, Acquired: ms(60), Released: ms(70)},
		{Run: "r", Token: "e", First: ms(61), Last: ms(90), Tries: 9},
	}
	hs := ClaimHandoffs(claims)
	if len(hs) != 1 || hs[0].From.Token != "a" || hs[0].To.Token != "b" || hs[0].Gap != 5*time.Millisecond {
		t.Fatalf("handoffs = %+v, want a to b after 5ms", hs)
	}
	s := NewSet()
	s.ObserveClaims(claims)
	if n := s.Histogram("r", LockWait).TotalCount(); n != 5 {
		t.Errorf("lock waits = %d, want one per claim, 5", n)
	}
	if h := s.Histogram("r", LockWait, history.LockTimeout); h.TotalCount() != 1 || h.Max() < 29000 {
		t.Errorf("gave-up waits = %d (max %dµs), want e's 29ms", h.TotalCount(), h.Max())
	}
	if n := s.Histogram("r", Handoff).TotalCount(); n != 1 {
		t.Errorf("handoffs recorded = %d, want 1", n)
	}
}
