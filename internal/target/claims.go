package target

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/hammer-load/hammer/history"
)

// maxClaims bounds how many claims a watch keeps: far more than the
// attempts of any race (each attempt draws at most one token per try of
// the service), so that a stream of strangers' tries cannot grow it
// without end. Claims past it are counted in dropped, not kept.
const maxClaims = 1 << 20

// maxToken is how much of a token a claim keeps.
const maxToken = 64

// claimLog follows every claim on the lock through a MONITOR stream: the
// tries of each token, the one that took the lock, and how the holding
// ended (a DEL of the key, which the release script's own DEL shows, or
// the TTL running out). Times are on Redis's clock until done moves them.
type claimLog struct {
	owner   func(port int) (int, bool)
	open    map[string]*claim // by token: waiting or holding
	holder  *claim            // nil when the lock is free
	expires int64             // when the holder's TTL runs out (Redis's clock, ns)
	last    int64             // the last line's time
	done    []*claim
	kept    int
	dropped int
}

// claim is a LockClaim as it is followed, with the client port its
// replica is found by.
type claim struct {
	history.LockClaim
	port int
}

// newClaimLog follows claims, tracing a client port to a replica with owner.
func newClaimLog(owner func(port int) (int, bool)) *claimLog {
	return &claimLog{owner: owner, open: map[string]*claim{}}
}

// observe takes one MONITOR line naming the lock key (m.args[1]).
func (l *claimLog) observe(m monitorLine) {
	l.last = max(l.last, m.ns)
	switch strings.ToLower(m.args[0]) {
	case "del", "unlink":
		if l.holder != nil {
			l.end(m.ns)
		}
	case "pexpire", "expire":
		if l.holder != nil && len(m.args) > 2 && m.ns < l.expires {
			unit := "ex"
			if strings.EqualFold(m.args[0], "pexpire") {
				unit = "px"
			}
			l.expires = m.ns + ttlNanos([]string{unit, m.args[2]})
		}
	case "set":
		if len(m.args) < 3 || !hasFlag(m.args[3:], "nx") {
			return
		}
		c := l.claim(m)
		if c == nil {
			return
		}
		c.Tries++
		c.Last = m.ns
		if l.holder != nil && m.ns >= l.expires {
			l.end(m.ns)
		}
		if l.holder == nil {
			c.Acquired, l.holder, l.expires = m.ns, c, m.ns+ttlNanos(m.args[3:])
		}
	}
}

// claim finds the open claim of the line's token, or opens one.
func (l *claimLog) claim(m monitorLine) *claim {
	token := m.args[2]
	if len(token) > maxToken {
		token = token[:maxToken]
	}
	if c, ok := l.open[token]; ok && c.Acquired == 0 {
		l.trace(c)
		return c
	}
	if l.kept >= maxClaims {
		l.dropped++
		return nil
	}
	l.kept++
	c := &claim{LockClaim: history.LockClaim{Replica: -1, Token: token, First: m.ns}, port: m.port}
	l.trace(c)
	l.open[token] = c
	return c
}

// trace finds the claim's replica, if it has not been found yet.
func (l *claimLog) trace(c *claim) {
	if c.Replica >= 0 || c.port <= 0 {
		return
	}
	if r, ok := l.owner(c.port); ok {
		c.Replica = r
	}
}

// end ends the holder's holding at at: released, or expired if its TTL
// ran out first.
func (l *claimLog) end(at int64) {
	h := l.holder
	if at >= l.expires {
		h.Expired = l.expires
	} else {
		h.Released = at
	}
	l.holder = nil
	l.close(h)
}

// close moves c from the open claims to the ended ones.
func (l *claimLog) close(c *claim) {
	delete(l.open, c.Token)
	l.done = append(l.done, c)
}

// lost ends the holding at at when Redis dropped the stream: a Redis that
// restarted lost the lock with its other keys.
func (l *claimLog) lost(at int64) {
	if l.holder != nil {
		l.expires = min(l.expires, at)
		l.end(at)
	}
}

// claims ends the watch: every claim, the open ones as they stand, traced
// to replicas where that is still possible, in the order of their first
// try, on the coordinator's clock (Redis's clock minus offset).
func (l *claimLog) claims(offset int64) []history.LockClaim {
	if l.holder != nil && l.last >= l.expires {
		l.end(l.last)
	}
	all := l.done
	for _, c := range l.open {
		all = append(all, c)
	}
	out := make([]history.LockClaim, 0, len(all))
	for _, c := range all {
		l.trace(c)
		lc := c.LockClaim
		for _, t := range []*int64{&lc.First, &lc.Last, &lc.Acquired, &lc.Released, &lc.Expired} {
			if *t != 0 {
				*t -= offset
			}
		}
		out = append(out, lc)
	}
	sortClaims(out)
	return out
}

// sortClaims orders claims by their first try.
func sortClaims(cs []history.LockClaim) {
	slices.SortFunc(cs, func(a, b history.LockClaim) int {
		return cmp.Or(cmp.Compare(a.First, b.First), cmp.Compare(a.Token, b.Token))
	})
}

// stampNanos reads a MONITOR timestamp ("1700000000.123456") as Unix
// nanoseconds, exactly.
func stampNanos(s string) (int64, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || len(frac) > 9 {
		return 0, false
	}
	f := int64(0)
	if frac != "" {
		if f, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil || f < 0 {
			return 0, false
		}
	}
	return n*1e9 + f, true
}

// ttlNanos reads a SET's PX or EX option in nanoseconds; without one the
// key never expires.
func ttlNanos(opts []string) int64 {
	s := ttlSeconds(opts)
	if s > 1e9 {
		return 1 << 62
	}
	return int64(s * 1e9)
}
