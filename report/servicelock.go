package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
)

// ServiceLock is what Redis's MONITOR stream showed of a user's service's
// lock during a run (history.LockClaim): the claims on it, how they
// ended, the handoffs, and the same per replica.
type ServiceLock struct {
	// Claims is how many tokens tried the lock; Holders how many took it.
	Claims  int `json:"claims"`
	Holders int `json:"holders"`
	// Waited counts the claims whose first try failed; GaveUp those that
	// never took the lock.
	Waited int `json:"waited"`
	GaveUp int `json:"gave_up"`
	// Expired counts the holders whose TTL ran out before a release.
	Expired int `json:"expired"`
	// Handoffs counts the locks released and taken next by a claim that
	// already waited (latency.ClaimHandoffs).
	Handoffs int `json:"handoffs"`
	// Untraced counts the claims whose client no replica was found to
	// hold.
	Untraced int           `json:"untraced,omitempty"`
	Replicas []ReplicaLock `json:"replicas"`
}

// ReplicaLock is one replica's part of a ServiceLock.
type ReplicaLock struct {
	Replica int `json:"replica"`
	Holders int `json:"holders"`
	GaveUp  int `json:"gave_up"`
	// HeldMs is how long the replica held the lock in all.
	HeldMs float64 `json:"held_ms"`
}

// serviceLock sums up the claims on a service's lock; nil when there are
// none (hammer's own strategies, a service without lock_key).
func serviceLock(claims []history.LockClaim) *ServiceLock {
	if len(claims) == 0 {
		return nil
	}
	sl := &ServiceLock{Claims: len(claims), Handoffs: len(latency.ClaimHandoffs(claims))}
	by := map[int]*ReplicaLock{}
	for _, c := range claims {
		r, ok := by[c.Replica]
		if !ok {
			r = &ReplicaLock{Replica: c.Replica}
			by[c.Replica] = r
		}
		if c.Replica < 0 {
			sl.Untraced++
		}
		if c.Waited() {
			sl.Waited++
		}
		if c.Acquired == 0 {
			sl.GaveUp++
			r.GaveUp++
			continue
		}
		sl.Holders++
		r.Holders++
		if c.Expired > 0 {
			sl.Expired++
		}
		if end := holdEnd(c); end > c.Acquired {
			r.HeldMs += float64(end-c.Acquired) / float64(time.Millisecond)
		}
	}
	for _, r := range by {
		r.HeldMs = round3(r.HeldMs)
		sl.Replicas = append(sl.Replicas, *r)
	}
	// By replica, the claims traced to none (-1) last.
	slices.SortFunc(sl.Replicas, func(a, b ReplicaLock) int { return cmp.Compare(uint(a.Replica), uint(b.Replica)) })
	return sl
}

// holdEnd is when a claim's holding ended: its release, or its expiry;
// zero when the watch ended with it still held.
func holdEnd(c history.LockClaim) int64 {
	if c.Released > 0 {
		return c.Released
	}
	return c.Expired
}

// round3 rounds v to three decimals (microseconds, for milliseconds).
func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// replicaName names replica i as the report does; -1 is a client not
// traced to one.
func replicaName(i int) string {
	if i < 0 {
		return "untraced"
	}
	return fmt.Sprintf("replica %d", i)
}

// writeServiceLock writes report.md's section on the lock of a user's
// service, for the runs that have claims on it.
func writeServiceLock(b *strings.Builder, s Summary) {
	if !slices.ContainsFunc(s.Runs, func(r RunSummary) bool { return r.ServiceLock != nil }) {
		return
	}
	b.WriteString("## The service's lock, seen in Redis\n\n")
	b.WriteString("> From Redis's `MONITOR` stream: each token the service set with `SET … NX` on its `lock_key` " +
		"is one claim; a try while the lock was held failed, a release is the key's `DEL` (the release " +
		"script's own), an expiry its TTL running out first. A handoff is a release followed by a claim " +
		"that was already waiting taking the lock; its time in the latency table is from that `DEL` to " +
		"the `SET … NX` that took the lock, as Redis ran them.\n\n")
	b.WriteString("| run | claims | holders | waited | gave up | expired | handoffs | holders by replica |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range s.Runs {
		sl := r.ServiceLock
		if sl == nil {
			continue
		}
		var per []string
		for _, rl := range sl.Replicas {
			what := fmt.Sprintf("%s: %d held for %s", replicaName(rl.Replica), rl.Holders, fmtMs(rl.HeldMs))
			if rl.Holders == 0 {
				what = fmt.Sprintf("%s: none held", replicaName(rl.Replica))
			}
			if rl.GaveUp > 0 {
				what += fmt.Sprintf(", %d gave up", rl.GaveUp)
			}
			per = append(per, what)
		}
		fmt.Fprintf(b, "| `%s` | %d | %d | %d | %d | %d | %d | %s |\n", r.Name, sl.Claims, sl.Holders, sl.Waited,
			sl.GaveUp, sl.Expired, sl.Handoffs, strings.Join(per, " · "))
	}
	b.WriteString("\n")
}
