package hammerlock

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/fixtures"
)

// Release deletes the lock only if it still holds the lease's token. It
// reports whether the key was ours; false means the lock had expired and
// may have been taken by someone else meanwhile. With handoff for the key,
// the release also passes the lock on in the same round trip: to the head
// of this process's line, taken for it with its Claim, or else announced
// to every process's waiters. On a Redlock it deletes the key on every
// node that still holds the token, is ours when a majority did, and is
// always announced, never passed.
func (l *Locker) Release(ctx context.Context, lease Lease) (bool, error) {
	if l.quorum != nil {
		return l.releaseQuorum(ctx, lease)
	}
	q := l.lines[lease.Key]
	if q == nil {
		n, err := l.release.Run(ctx, l.rdb, []string{lease.Key}, lease.Token).Int()
		if err != nil {
			return false, fmt.Errorf("release %s: %w", lease.Key, err)
		}
		return n == 1, nil
	}
	if head := q.next(); head != nil {
		return l.releaseAndPass(ctx, q, head, lease)
	}
	defer q.wake()
	n, err := l.releaseAndAnnounce(ctx, lease)
	if err != nil {
		return false, fmt.Errorf("release %s: %w", lease.Key, err)
	}
	return n == 1, nil
}

// releaseAndAnnounce runs the release script and publishes the release in
// one round trip; a failed publish only makes the other waiters poll. The
// script goes as EVAL, not EVALSHA: a Redis without it in its cache (new,
// or restarted) would otherwise refuse the release and still publish it,
// waking every waiter to a lock that is still taken.
func (l *Locker) releaseAndAnnounce(ctx context.Context, lease Lease) (int64, error) {
	var del *redis.Cmd
	// A failed pipeline sets its error on every command, del included;
	// only the announcement's own failure is ignored.
	_, _ = l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		del = p.Eval(ctx, fixtures.ReleaseScript(), []string{lease.Key}, lease.Token)
		p.Publish(ctx, ReleasedChannel(lease.Key), "")
		return nil
	})
	return del.Int64()
}

// releaseAndPass runs the release script and, right behind it in the same
// round trip, head's own acquisition: Redis runs the two back to back, so
// the lock is free for no more than that. Both scripts go as EVAL (not
// EVALSHA), so that a Redis that restarted and lost its script cache
// cannot leave the release undone while the acquisition ran. If the
// acquisition fails (the lock was not ours and is held) head is woken and
// polls; if head gave up meanwhile, the lock taken for it is released.
func (l *Locker) releaseAndPass(ctx context.Context, q *line, head *place, lease Lease) (bool, error) {
	next, err := newToken()
	if err != nil {
		return false, err
	}
	var del, take *redis.Cmd
	var set *redis.StatusCmd
	sent := time.Now()
	_, _ = l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		del = p.Eval(ctx, fixtures.ReleaseScript(), []string{lease.Key}, lease.Token)
		if head.claim.FenceKey != "" {
			take = p.Eval(ctx, fixtures.AcquireFencedScript(), []string{lease.Key, head.claim.FenceKey}, next, head.claim.TTL.Milliseconds())
		} else {
			set = p.SetArgs(ctx, lease.Key, next, redis.SetArgs{Mode: "NX", TTL: head.claim.TTL})
		}
		return nil
	})
	n, err := del.Int64()
	if err != nil {
		q.wake()
		return false, fmt.Errorf("release %s: %w", lease.Key, err)
	}
	passed := Lease{Key: lease.Key, Token: next, Sent: sent}
	var perr error
	if take != nil {
		passed.Fence, perr = take.Int64()
		if perr == nil && passed.Fence == 0 {
			perr = redis.Nil
		}
	} else {
		perr = set.Err()
	}
	switch {
	case perr != nil:
		q.wake() // not taken for head (held by another, or failed): it polls
	case !q.hand(head, passed):
		_, _ = l.Release(ctx, passed) // head left: the lock goes on from here
	default:
		// Let the new holder run now, on this thread, rather than after
		// whatever the releasing goroutine does next, or on another
		// thread woken for it.
		runtime.Gosched()
	}
	return n == 1, nil
}
