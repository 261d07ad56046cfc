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

	"github.com/hammer-load/hammer/internal/redislock"
)

// majority is a Redlock holder's hold on the nodes when a fault that
// strikes a node of its majority (node-restart, clock-jump) hits it.
type majority struct {
	nodes []*redis.Client // every node, node 0 first
	key   string
	token string // the struck holder's
	held  []int  // the nodes that held its token when it was struck
	// kept is the bare majority left to it (node 0 always among them:
	// the node that also keeps the hint and the fault's counter), cut
	// the nodes its key was taken from, victim the node of kept the fault
	// strikes (never node 0).
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
	return fmt.Sprintf("%s held the lock on %s%s; %s, so it held only %s, a minority; %s",
		t.RequestID, nodeList(m.held), cut, how, nodeList(left), m.awaitNewHolder(ctx, c)), nil
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
	token, err := m.locker().Holder(ctx, m.key)
	switch {
	case err != nil:
		return m, fmt.Errorf("read the lock on every node: %w", err)
	case token == "":
		return m, errors.New("no token held the lock on a majority of the nodes when the holder was struck")
	}
	m.token, m.held = token, m.holding(ctx, token)
	q := redislock.Quorum(len(m.nodes))
	if len(m.held) < q {
		return m, fmt.Errorf("the holder's token was on %s, not a majority, when it was struck", nodeList(m.held))
	}
	m.kept, m.cut = m.held[:q], m.held[q:]
	m.victim = m.kept[q-1]
	if m.victim == 0 {
		return m, fmt.Errorf("the holder held node 0 alone of its majority")
	}
	for _, n := range m.cut {
		l := redislock.New(m.nodes[n], redislock.DefaultBackoff())
		if _, err := l.Release(ctx, redislock.Lease{Key: m.key, Token: token}); err != nil {
			return m, fmt.Errorf("take the holder's key from node %d: %w", n, err)
		}
	}
	return m, nil
}

// locker is a Redlock client over every node.
func (m *majority) locker() *redislock.Locker {
	peers := make([]redis.Cmdable, 0, len(m.nodes)-1)
	for _, n := range m.nodes[1:] {
		peers = append(peers, n)
	}
	return redislock.New(m.nodes[0], redislock.DefaultBackoff()).WithPeers(peers...)
}

// holding returns the nodes whose lock key holds token, in order (a node
// that cannot be read counts as not holding it).
func (m *majority) holding(ctx context.Context, token string) []int {
	var out []int
	for i, n := range m.nodes {
		if v, err := n.Get(ctx, m.key).Result(); err == nil && v == token {
			out = append(out, i)
		}
	}
	return out
}

// awaitNewHolder waits until another token holds the lock on a majority,
// or a holder was counted (HolderKey, on node 0) since, for as long as
// awaitNewHolder of a lost single-node lock would, and says what it saw.
func (m *majority) awaitNewHolder(ctx context.Context, c *Coordinator) string {
	counted := func() int64 {
		n, _ := m.nodes[0].Get(ctx, c.HolderKey).Int64() // missing or unreadable: 0
		return n
	}
	before := counted()
	l := m.locker()
	deadline := time.Now().Add(min(10*c.LockTTL, newHolderWait))
	for time.Now().Before(deadline) {
		if h, err := l.Holder(ctx, m.key); err == nil && h != "" && h != m.token {
			on := m.holding(ctx, h)
			Sleep(ctx, 20*time.Millisecond) // let the new holder read before the old one writes
			return fmt.Sprintf("another contender took the lock on a majority (%s), then the old holder went on", nodeList(on))
		}
		if c.HolderKey != "" && counted() > before {
			return "another contender took the lock on a majority (and gave it back), then the old holder went on"
		}
		if !Sleep(ctx, time.Millisecond) {
			break
		}
	}
	return "nobody took the lock on a majority before the old holder went on"
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
