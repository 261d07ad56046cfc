package fault

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

func TestMain(m *testing.M) { os.Exit(stacktest.Main(m)) }

// TestSuccessorDuringTheHit: a contender that wins a majority, is counted
// and gives the lock back while the hit is still under way (workers reach a
// restarted node before hammer has seen it ready, and the sector sells
// out meanwhile) is told as a new holder, not as "nobody took the lock".
func TestSuccessorDuringTheHit(t *testing.T) {
	st := stacktest.Redlock(t, 3)
	ctx := context.Background()
	c := &Coordinator{LockTTL: 50 * time.Millisecond, RedisURL: st.RedisURL, RedisPeers: st.RedisPeers[:2], Procs: &procsLog{}}
	nodes := holdEverywhere(t, c, "the struck holder's token")
	story, err := strikeMajority(ctx, c, &Target{RequestID: "p0-g1-a0"}, func(ctx context.Context, m *majority) (string, error) {
		if err := m.nodes[m.victim].Del(ctx, m.key).Err(); err != nil {
			return "", err
		}
		return "the victim lost its key", nodes[0].Incr(ctx, c.HolderKey).Err() // a successor, counted
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(story, "another contender took the lock on a majority (and gave it back)") {
		t.Errorf("story %q; want the successor counted during the hit", story)
	}
}

// TestNobodyTookSaysWhatHeldTheNodes: when no successor came, the story
// says what each node held at the end, and the strike says its timeline
// was unmet.
func TestNobodyTookSaysWhatHeldTheNodes(t *testing.T) {
	st := stacktest.Redlock(t, 3)
	ctx := context.Background()
	c := &Coordinator{LockTTL: 20 * time.Millisecond, RedisURL: st.RedisURL, RedisPeers: st.RedisPeers[:2], Procs: &procsLog{}}
	holdEverywhere(t, c, "the struck holder's token")
	story, err := strikeMajority(ctx, c, &Target{RequestID: "p0-g1-a0"}, func(ctx context.Context, m *majority) (string, error) {
		return "the victim lost its key", m.nodes[m.victim].Del(ctx, m.key).Err()
	})
	var unmet *Unmet
	if !errors.As(err, &unmet) || unmet.Why != "nobody took the lock on a majority before the old holder went on" {
		t.Fatalf("error %v; want the unmet timeline named", err)
	}
	want := "nobody took the lock on a majority before the old holder went on (node 0 the struck holder, node 1 free, node 2 free)"
	if !strings.Contains(story, want) {
		t.Errorf("story %q; want it to end %q", story, want)
	}
}

// TestLoseLockReadsTheCount: on a Redis hammer does not manage, lock-loss
// deletes the lock key and reads the holders' count in one transaction.
func TestLoseLockReadsTheCount(t *testing.T) {
	st := stacktest.Get(t)
	ctx := context.Background()
	c := &Coordinator{RedisURL: st.RedisURL}
	nodes := holdEverywhere(t, c, "a holder's token")
	if err := nodes[0].IncrBy(ctx, c.HolderKey, 6).Err(); err != nil {
		t.Fatal(err)
	}
	lost, err := loseLock(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := nodes[0].Exists(ctx, c.LockKey).Result(); lost.counted != 7 || n != 0 {
		t.Errorf("counted %d, lock key exists %d; want 7 and 0", lost.counted, n)
	}
}

// holdEverywhere gives c a lock key and a holder count of the test's own,
// sets the lock to token on every node of c, counts its holder once, and
// removes both keys from every node when the test ends. It returns the
// nodes, node 0 first.
func holdEverywhere(t *testing.T, c *Coordinator, token string) []*redis.Client {
	t.Helper()
	ctx := context.Background()
	prefix := "hammer:faulttest-" + rand.Text() + ":"
	c.LockKey, c.HolderKey = prefix+"lock", prefix+"holders"
	var nodes []*redis.Client
	for _, u := range append([]string{c.RedisURL}, c.RedisPeers...) {
		rdb, err := dial(u)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, rdb)
		t.Cleanup(func() {
			rdb.Del(context.Background(), c.LockKey, c.HolderKey)
			rdb.Close()
		})
		if err := rdb.Set(ctx, c.LockKey, token, 10*time.Second).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := nodes[0].Incr(ctx, c.HolderKey).Err(); err != nil {
		t.Fatal(err)
	}
	return nodes
}
