package fault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
)

// majority is a Redlock holder's hold on the nodes when a fault that
// strikes a node of its majority (node-restart, clock-jump) hits it.
type majority struct {
	nodes []*redis.Client // every node, node 0 first
	key   string
	token string // the struck holder's
	held  []int  // the nodes that held its token when it was struck
	// kept is the bare majority left to it, the first N/2+1 nodes it
	// held; cut the nodes its key was taken from; victim the node of kept
	// the fault strikes, the last: never node 0, which also keeps the
	// hint and the fault's counter.
	kept, cut []int
	victim    int
}

// strikeMajority is the coordinator's side of the Redlock timelines of
// the Redis docs: the struck holder t is left a bare majority of the nodes
// (its key taken from the others, as if its SET had never reached them:
// the network issue the timelines start with), hit strikes one node of
// that majority, and once another contender holds the lock on a majority t
// goes on. It says which nodes held which key when.
func strikeMajority(ctx context.Context, c *Coordinator, t *Target, hit func(context.Context, *majority) (string, error)) (string, error) {
	defer c.Procs.Resume(*t) // resumed only once the lock is another's, or the strike failed
	m, err := narrow(ctx, c)
	if m != nil {
		defer m.close()
	}
	if err != nil {
		return "", err
	}
	// Counted before the hit: a successor may come and go while hit waits
	// for the node it restarted to be ready. Node 0, which keeps the
	// count, is never hit.
	before, err := holdersCounted(ctx, m.nodes[0], c.HolderKey)
	if err != nil {
		return "", err
	}
	how, err := hit(ctx, m)
	if err != nil {
		return "", err
	}
	var cut string
	if len(m.cut) > 0 {
		cut = fmt.Sprintf("; its key was removed from %s as if its SET had never got there (a network issue), leaving it a bare majority: %s",
			nodeList(m.cut), nodeList(m.kept))
	}
	left := slices.DeleteFunc(slices.Clone(m.kept), func(n int) bool { return n == m.victim })
	taken, err := m.awaitNewHolder(ctx, c, before)
	return fmt.Sprintf("%s held the lock on %s%s; %s, so it held only %s, a minority; %s",
		t.RequestID, nodeList(m.held), cut, how, nodeList(left), taken), err
}

// narrow reads which nodes hold the struck holder's token (the token a
// majority holds) and takes it from the nodes beyond a bare majority.
func narrow(ctx context.Context, c *Coordinator) (*majority, error) {
	if len(c.RedisPeers) < 2 {
		return nil, fmt.Errorf("the lock is taken on %d Redis node(s); a node of a majority can fail only with 3 or more", len(c.RedisPeers)+1)
	}
	m := &majority{key: c.LockKey}
	for _, u := range append([]string{c.RedisURL}, c.RedisPeers...) {
		rdb, err := dial(u)
		if err != nil {
			return m, err
		}
		m.nodes = append(m.nodes, rdb)
	}
	m.token, m.held = m.majorityHolder(ctx)
	if m.token == "" {
		return m, errors.New("no token held the lock on a majority of the nodes when the holder was struck")
	}
	q := hammerlock.Quorum(len(m.nodes))
	m.kept, m.cut = m.held[:q], m.held[q:]
	m.victim = m.kept[q-1] // q >= 2 and kept is in order: never node 0
	for _, n := range m.cut {
		l := hammerlock.New(m.nodes[n], hammerlock.DefaultBackoff())
		if _, err := l.Release(ctx, hammerlock.Lease{Key: m.key, Token: m.token}); err != nil {
			return m, fmt.Errorf("take the holder's key from node %d: %w", n, err)
		}
	}
	return m, nil
}

// spread reads the lock key on every node: its value on each, "" where it
// is missing or cannot be read.
func (m *majority) spread(ctx context.Context) []string {
	values := make([]string, len(m.nodes))
	for i, n := range m.nodes {
		values[i], _ = n.Get(ctx, m.key).Result()
	}
	return values
}

// majorityHolder reads the lock key on every node once and returns the
// token a majority holds and the nodes holding it, in order; "" and none
// when no token holds a majority.
func (m *majority) majorityHolder(ctx context.Context) (string, []int) {
	values := m.spread(ctx)
	for _, v := range values {
		if v == "" {
			continue
		}
		if on := holders(values, v); len(on) >= hammerlock.Quorum(len(m.nodes)) {
			return v, on
		}
	}
	return "", nil
}

// holders returns the nodes whose value is token.
func holders(values []string, token string) []int {
	var out []int
	for i, v := range values {
		if v == token {
			out = append(out, i)
		}
	}
	return out
}

// awaitNewHolder waits until another token holds the lock on a majority,
// or more holders than before were counted (HolderKey, on node 0), for as
// long as awaitNewHolder of a lost single-node lock would, and says what
// it saw: an *Unmet error too when nobody took it.
func (m *majority) awaitNewHolder(ctx context.Context, c *Coordinator, before int64) (string, error) {
	deadline := time.Now().Add(min(10*c.LockTTL, newHolderWait))
	for time.Now().Before(deadline) {
		if h, on := m.majorityHolder(ctx); h != "" && h != m.token {
			Sleep(ctx, 20*time.Millisecond) // let the new holder read before the old one writes
			return fmt.Sprintf("another contender took the lock on a majority (%s), then the old holder went on", nodeList(on)), nil
		}
		if countedSince(ctx, m.nodes[0], c.HolderKey, before) {
			return "another contender took the lock on a majority (and gave it back), then the old holder went on", nil
		}
		if !Sleep(ctx, time.Millisecond) {
			break
		}
	}
	const nobody = "nobody took the lock on a majority before the old holder went on"
	return nobody + " (" + m.describe(ctx) + ")", &Unmet{Why: nobody}
}

// describe says what holds the lock key on each node now: "node 0 the
// struck holder, node 1 free, node 2 another contender, node 3 unreadable".
func (m *majority) describe(ctx context.Context) string {
	parts := make([]string, len(m.nodes))
	for i, n := range m.nodes {
		v, err := n.Get(ctx, m.key).Result()
		what := "another contender"
		switch {
		case errors.Is(err, redis.Nil):
			what = "free"
		case err != nil:
			what = "unreadable"
		case v == m.token:
			what = "the struck holder"
		}
		parts[i] = fmt.Sprintf("node %d %s", i, what)
	}
	return strings.Join(parts, ", ")
}

// close closes the clients of the nodes.
func (m *majority) close() {
	for _, n := range m.nodes {
		n.Close()
	}
}

// nodeList names nodes in words: "node 2", "nodes 0, 1 and 2".
func nodeList(nodes []int) string {
	if len(nodes) == 1 {
		return "node " + strconv.Itoa(nodes[0])
	}
	words := make([]string, len(nodes))
	for i, n := range nodes {
		words[i] = strconv.Itoa(n)
	}
	if len(words) == 0 {
		return "no node"
	}
	return "nodes " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
