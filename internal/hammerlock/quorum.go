package hammerlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Quorum returns how many of n nodes make a majority.
func Quorum(n int) int { return n/2 + 1 }

// Drift is the clock drift a Redlock allows for on a lock of ttl: 1% of
// the TTL plus 2 ms, the figure of the Redis docs ("Distributed locks with
// Redis").
func Drift(ttl time.Duration) time.Duration { return ttl/100 + 2*time.Millisecond }

// quorum is a Redlock over N independent Redis nodes, the algorithm of the
// Redis docs: a holder sets the key with its token on every node at once
// (SET NX PX, or the fenced script) and holds the lock if a majority
// granted it while time was left of the TTL, less the time the round took
// and the drift; else it gives back what it took and the wait goes on.
// Release and extension go to every node with the owner-checked scripts;
// either counts as done when a majority did it.
type quorum struct {
	nodes                          []redis.Cmdable
	release, acquireFenced, extend *redis.Script
}

// WithPeers returns a Locker whose lock is a Redlock over the Locker's own
// Redis (node 0) and peers (nodes 1 to N-1): a lock is held on a majority
// of the N nodes. The release announcements of handoff stay on node 0,
// and a release is never passed to a waiter in
// its own round trip: it is announced, and the waiters try for a majority
// themselves. Without peers it returns l.
func (l *Locker) WithPeers(peers ...redis.Cmdable) *Locker {
	if len(peers) == 0 {
		return l
	}
	c := *l
	c.quorum = &quorum{
		nodes:         append([]redis.Cmdable{l.rdb}, peers...),
		release:       l.release,
		acquireFenced: l.acquireFenced,
		extend:        l.extend,
	}
	return &c
}

// each runs do on every node at once and returns the answers and the
// errors, by node.
func each[T any](ctx context.Context, nodes []redis.Cmdable, do func(ctx context.Context, node redis.Cmdable) (T, error)) ([]T, []error) {
	vals, errs := make([]T, len(nodes)), make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, node := range nodes {
		wg.Go(func() { vals[i], errs[i] = do(ctx, node) })
	}
	wg.Wait()
	return vals, errs
}

// failures names the nodes whose command failed, with their errors.
func failures(errs []error) []error {
	var out []error
	for i, err := range errs {
		if err != nil {
			out = append(out, fmt.Errorf("node %d: %w", i, err))
		}
	}
	return out
}

// acquire makes one Redlock attempt at key with a new token: fenced with
// fenceKey's counter on every node when fenceKey is set. The lease's
// fencing token is the largest counter among the nodes that granted it.
// ok is false when no majority granted it in time; the error is set only
// when so many nodes failed that no majority could have.
func (q *quorum) acquire(ctx context.Context, key, fenceKey string, ttl time.Duration) (Lease, bool, error) {
	token, err := newToken()
	if err != nil {
		return Lease{}, false, err
	}
	start := time.Now()
	// A grant that comes later than the TTL leaves no validity: no node
	// is waited for longer.
	actx, cancel := context.WithTimeout(ctx, ttl)
	granted, errs := each(actx, q.nodes, func(ctx context.Context, node redis.Cmdable) (int64, error) {
		if fenceKey != "" {
			return q.acquireFenced.Run(ctx, node, []string{key, fenceKey}, token, ttl.Milliseconds()).Int64()
		}
		err := node.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
		if errors.Is(err, redis.Nil) {
			return 0, nil
		}
		return 1, err
	})
	late := actx.Err() != nil && ctx.Err() == nil
	cancel()
	lease := Lease{Key: key, Token: token, Until: start.Add(ttl - Drift(ttl)), Sent: start}
	won := 0
	for i, n := range granted {
		if errs[i] == nil && n > 0 {
			won++
			if fenceKey != "" {
				lease.Fence = max(lease.Fence, n)
			}
		}
	}
	if won >= Quorum(len(q.nodes)) && time.Now().Before(lease.Until) {
		return lease, true, nil
	}
	q.giveBack(ctx, lease, granted, errs)
	if late {
		// Nodes that did not answer within the TTL could not have made
		// the lock valid: a refusal, not a failure of theirs.
		return Lease{}, false, nil
	}
	if failed := failures(errs); len(failed) > len(q.nodes)-Quorum(len(q.nodes)) {
		return Lease{}, false, fmt.Errorf("acquire %s: %d of %d nodes failed: %w", key, len(failed), len(q.nodes), errors.Join(failed...))
	}
	return Lease{}, false, nil
}

// giveBack releases a lock that was not won on every node that granted it
// or did not answer (its SET may have landed there); a node that refused
// it cleanly never held it.
func (q *quorum) giveBack(ctx context.Context, lease Lease, granted []int64, errs []error) {
	ctx = context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	for i := range q.nodes {
		if errs[i] != nil || granted[i] > 0 {
			wg.Go(func() { _ = q.release.Run(ctx, q.nodes[i], []string{lease.Key}, lease.Token).Err() })
		}
	}
	wg.Wait()
}

// majority runs an owner-checked script on every node and reports whether
// it did its work (returned 1) on a majority; the error is set only when
// it did not and some node failed.
func (q *quorum) majority(ctx context.Context, what string, script *redis.Script, lease Lease, args ...any) (bool, error) {
	done, errs := each(ctx, q.nodes, func(ctx context.Context, node redis.Cmdable) (int64, error) {
		return script.Run(ctx, node, []string{lease.Key}, append([]any{lease.Token}, args...)...).Int64()
	})
	n := 0
	for i, d := range done {
		if errs[i] == nil && d == 1 {
			n++
		}
	}
	if n >= Quorum(len(q.nodes)) {
		return true, nil
	}
	if failed := failures(errs); len(failed) > 0 {
		return false, fmt.Errorf("%s %s: %w", what, lease.Key, errors.Join(failed...))
	}
	return false, nil
}

// holder returns the token that holds key on a majority of the nodes, or
// "" if none does; an error when so many nodes failed that no majority
// could be seen.
func (q *quorum) holder(ctx context.Context, key string) (string, error) {
	values, errs := each(ctx, q.nodes, func(ctx context.Context, node redis.Cmdable) (string, error) {
		v, err := node.Get(ctx, key).Result()
		if errors.Is(err, redis.Nil) {
			return "", nil
		}
		return v, err
	})
	count := map[string]int{}
	for i, v := range values {
		if errs[i] == nil && v != "" {
			count[v]++
		}
	}
	for v, n := range count {
		if n >= Quorum(len(q.nodes)) {
			return v, nil
		}
	}
	if failed := failures(errs); len(failed) > len(q.nodes)-Quorum(len(q.nodes)) {
		return "", fmt.Errorf("read %s: %w", key, errors.Join(failed...))
	}
	return "", nil
}

// releaseQuorum deletes the lock on every node that still holds the
// lease's token; with handoff for the key, the release is then announced
// on node 0 and this process's waiters are woken.
func (l *Locker) releaseQuorum(ctx context.Context, lease Lease) (bool, error) {
	ours, err := l.quorum.majority(ctx, "release", l.quorum.release, lease)
	if q := l.lines[lease.Key]; q != nil {
		_ = l.rdb.Publish(ctx, ReleasedChannel(lease.Key), "").Err() // a hint: waiters poll anyway
		q.wake()
	}
	return ours, err
}
