package latency

import (
	"cmp"
	"slices"
	"time"

	"github.com/hammer-load/hammer/history"
)

// ObserveClaims records the claims on a user's service's lock, as
// Redis's MONITOR stream showed them, in the phases hammer's own lock
// records: LockWait for each claim from its first try until it took the
// lock (under no outcome: a claim is not tied to a request), or until its
// last try for one that never did (under lock_timeout), and Handoff for
// each lock that passed on to a claim already waiting (see ClaimHandoffs).
func (s *Set) ObserveClaims(claims []history.LockClaim) {
	for _, c := range claims {
		switch {
		case c.Acquired > 0:
			s.record(Key{Run: c.Run, Phase: LockWait}, time.Duration(c.Acquired-c.First))
		case c.Last >= c.First:
			s.record(Key{Run: c.Run, Phase: LockWait, Outcome: history.LockTimeout}, time.Duration(c.Last-c.First))
		}
	}
	for _, h := range ClaimHandoffs(claims) {
		s.record(Key{Run: h.To.Run, Phase: Handoff}, h.Gap)
	}
}

// ClaimHandoff is the lock passing from one claim to the next.
type ClaimHandoff struct {
	From, To history.LockClaim
	// Gap is from the lock's release to the next claim taking it.
	Gap time.Duration
}

// ClaimHandoffs returns the handoffs among the claims of one run: the lock
// was released (not expired) by one holder and taken next by a claim
// that had tried before the release: how long the lock sat free while
// someone wanted it, as HandoffGap measures it for hammer's own lock.
func ClaimHandoffs(claims []history.LockClaim) []ClaimHandoff {
	var held []history.LockClaim
	for _, c := range claims {
		if c.Acquired > 0 {
			held = append(held, c)
		}
	}
	slices.SortFunc(held, func(a, b history.LockClaim) int { return cmp.Compare(a.Acquired, b.Acquired) })
	var out []ClaimHandoff
	for i := 1; i < len(held); i++ {
		prev, cur := held[i-1], held[i]
		if prev.Released == 0 || prev.Run != cur.Run || cur.First > prev.Released || cur.Acquired < prev.Released {
			continue
		}
		out = append(out, ClaimHandoff{From: prev, To: cur, Gap: time.Duration(cur.Acquired - prev.Released)})
	}
	return out
}
