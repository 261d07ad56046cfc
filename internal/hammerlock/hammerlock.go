// Package hammerlock is the single-instance Redis lock hammer puts under test:
// acquire with SET key token NX PX ttl, release with a Lua script that deletes
// the key only while it still holds the caller's token.
//
// Over N independent Redis nodes the same lock is a Redlock (WithPeers):
// held when a majority of the nodes granted it within its validity.
//
// The lock is contention management, not a correctness guarantee: a holder
// that pauses past its TTL, or a Redis that loses the key, lets a second
// holder in; so does a node of a Redlock's majority that restarts without
// persistence or whose clock jumps. hammer exists to show exactly that.
package hammerlock

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/fixtures"
)

// ErrTimeout is returned by Acquire when the lock stayed taken for the whole wait.
var ErrTimeout = errors.New("lock wait timed out")

// Backoff bounds the sleep between two tries of a contended lock, and how
// long tries may keep failing with errors before the wait is given up.
type Backoff struct {
	Min, Max time.Duration
	// GiveUp is how long every try may fail with an error (Redis down,
	// refusing or timing out connections) before Retry returns that error
	// instead of waiting out the rest of the lock wait; 0 never gives up.
	GiveUp time.Duration
}

// DefaultBackoff starts at one millisecond and doubles up to 16 ms, which
// keeps a thousand waiters from flooding a local Redis, and gives up after
// three seconds of errors: long enough for a Redis restart, short enough
// that nobody waits a minute for a lock on a dead server.
func DefaultBackoff() Backoff {
	return Backoff{Min: time.Millisecond, Max: 16 * time.Millisecond, GiveUp: 3 * time.Second}
}

// Locker takes and releases locks on one Redis.
type Locker struct {
	rdb                            redis.Cmdable
	release, acquireFenced, extend *redis.Script
	backoff                        Backoff
	// lines holds the waiters of the keys with handoff, by key; set
	// before the Locker is used and never changed after.
	lines map[string]*line
	// quorum, if set, makes the lock a Redlock over several nodes (see
	// WithPeers).
	quorum *quorum
}

// New returns a Locker over rdb that waits with the given backoff.
func New(rdb redis.Cmdable, b Backoff) *Locker {
	return &Locker{
		rdb:           rdb,
		release:       redis.NewScript(fixtures.ReleaseScript()),
		acquireFenced: redis.NewScript(fixtures.AcquireFencedScript()),
		extend:        redis.NewScript(fixtures.ExtendScript()),
		backoff:       b,
	}
}

// WithHandoff returns a Locker whose waiters for key wait in line and wake
// when the lock is released, and whose releases of key are announced on
// ReleasedChannel(key) for the other processes' waiters. Listen must read
// that channel for releases elsewhere to wake this process's waiters;
// without it they are still found by polling.
func (l *Locker) WithHandoff(key string) *Locker {
	c := *l
	c.lines = map[string]*line{key: {epoch: time.Now()}}
	for k, q := range l.lines {
		c.lines[k] = q
	}
	return &c
}

// Ping checks that Redis answers, opening a connection if none is idle.
func (l *Locker) Ping(ctx context.Context) error { return l.rdb.Ping(ctx).Err() }

// Lease is a held lock: the key and the token that proves ownership, and
// for a fenced lock the fencing token.
type Lease struct {
	Key   string
	Token string
	Fence int64
	// Until is when a Redlock's validity (see WithPeers) ends by this
	// process's clock: the acquisition's start plus the TTL less the
	// clock drift allowed for; zero for a lock on one Redis.
	Until time.Time
	// Sent is when the command that set the lock's TTL was sent: the
	// server ran it no earlier, so the lock lives at least until Sent
	// plus the TTL by this process's clock (less the clocks' drift). Zero
	// when the lock library does not tell (internal/locks).
	Sent time.Time
	// Held is a lock library's own handle of the lock, which its release
	// and extension go through (internal/locks); nil for hammer's lock.
	Held any
}

// TryAcquire makes one SET NX PX attempt. ok is false when someone else
// holds the key. On a Redlock the attempt goes to every node at once and
// takes the lock if a majority granted it within its validity.
func (l *Locker) TryAcquire(ctx context.Context, key string, ttl time.Duration) (Lease, bool, error) {
	if l.quorum != nil {
		return l.quorum.acquire(ctx, key, "", ttl)
	}
	token, err := newToken()
	if err != nil {
		return Lease{}, false, err
	}
	sent := time.Now()
	err = l.rdb.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return Lease{}, false, nil
	case err != nil:
		return Lease{}, false, fmt.Errorf("acquire %s: %w", key, err)
	}
	return Lease{Key: key, Token: token, Sent: sent}, true, nil
}

// TryAcquireFenced makes one attempt at a fenced lock: SET NX PX and, if it
// succeeded, INCR of fenceKey, in one script. The lease carries the new
// fencing token, which grows with every acquisition while Redis keeps its
// data. On a Redlock every node runs the script with its own counter and
// the token is the largest counter of the majority that granted the lock:
// two majorities share a node, so it still grows while no node loses its
// data.
func (l *Locker) TryAcquireFenced(ctx context.Context, key, fenceKey string, ttl time.Duration) (Lease, bool, error) {
	if l.quorum != nil {
		return l.quorum.acquire(ctx, key, fenceKey, ttl)
	}
	token, err := newToken()
	if err != nil {
		return Lease{}, false, err
	}
	sent := time.Now()
	fence, err := l.acquireFenced.Run(ctx, l.rdb, []string{key, fenceKey}, token, ttl.Milliseconds()).Int64()
	switch {
	case err != nil:
		return Lease{}, false, fmt.Errorf("acquire %s: %w", key, err)
	case fence == 0:
		return Lease{}, false, nil
	}
	return Lease{Key: key, Token: token, Fence: fence, Sent: sent}, true, nil
}

// Acquire retries TryAcquire with jittered exponential backoff until it gets
// the lock, wait has passed (ErrTimeout), or ctx ends. rng supplies the
// jitter so that a seeded run backs off the same way every time.
func (l *Locker) Acquire(ctx context.Context, key string, ttl, wait time.Duration, rng *rand.Rand) (Lease, error) {
	return l.Retry(ctx, key, wait, rng, &Claim{TTL: ttl}, func() (Lease, bool, error) { return l.TryAcquire(ctx, key, ttl) })
}

// Retry calls try with jittered exponential backoff until it takes the
// lock on key or wait has passed. Errors count as a failed try (a
// restarting Redis answers again soon) until every try has failed with one
// for Backoff.GiveUp; then, or if the last try failed with an error, that
// error is returned instead of ErrTimeout. With handoff for key, the
// waiter first joins the line: only its head tries, at once when a
// release is announced, else after its backoff, and the others wait their
// turn without a command. If claim is not nil, try is that acquisition,
// and a holder of this process releasing the lock may take it for the
// head of the line with claim (see Claim).
//
// Retry itself is kept to a small frame, and so are its callers' in
// hammer, so that tens of thousands of waiters that wait in it for their
// turn each fit in a small goroutine stack; the tries run in retry, on the
// stack of the few at the head. (A flash sale's waiters hold no goroutine
// while they wait: see Join.)
func (l *Locker) Retry(ctx context.Context, key string, wait time.Duration, rng *rand.Rand, claim *Claim, try func() (Lease, bool, error)) (Lease, error) {
	q := l.lines[key]
	if q == nil {
		return l.retry(ctx, time.Now().Add(wait), rng, nil, try)
	}
	now := q.now()
	in := q.join(ctx, claim, now, now.Add(wait), nil)
	in.await()
	return l.Resume(ctx, Ticket{in}, rng, try)
}

// leave takes in out of its line and releases a lock a holder took for it
// that it did not use (it gave up as the lock was passed to it, or took
// it itself after it expired).
func (l *Locker) leave(ctx context.Context, in *place) {
	if unused, ok := in.leave(); ok {
		_, _ = l.Release(context.WithoutCancel(ctx), unused)
	}
}

// retry is Retry's loop of tries, made by a waiter alone (in is nil) or by
// the head of a line.
func (l *Locker) retry(ctx context.Context, deadline time.Time, rng *rand.Rand, in *place, try func() (Lease, bool, error)) (Lease, error) {
	sleep := l.backoff.Min
	var failing time.Time // when the current run of errors began
	for {
		if in != nil {
			if why := in.q.sending(); why != nil {
				return Lease{}, why
			}
		}
		lease, ok, err := try()
		if ok {
			if in != nil {
				in.q.took()
			}
			return lease, nil
		}
		if in != nil {
			failing = in.q.tried(err) // the line's clock: a new head inherits it
		} else if err == nil {
			failing = time.Time{}
		} else if failing.IsZero() {
			failing = time.Now()
		}
		if err != nil && l.backoff.GiveUp > 0 && time.Since(failing) >= l.backoff.GiveUp {
			return Lease{}, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return Lease{}, cmpErr(ErrTimeout, err)
		}
		if handed, werr := l.pause(ctx, min(jitter(sleep, rng), left), in); werr != nil || handed.Token != "" {
			return handed, werr
		}
		sleep = min(sleep*2, l.backoff.Max)
	}
}

// cmpErr is the error a wait that ended with waitErr returns: the last
// try's error, if it failed with one and the wait merely timed out.
func cmpErr(waitErr, tryErr error) error {
	if errors.Is(waitErr, ErrTimeout) && tryErr != nil {
		return tryErr
	}
	return waitErr
}

// pause waits d, or less if in is woken by a release, or handed the lock
// (which it returns); it returns ctx's error if ctx ends first.
func (l *Locker) pause(ctx context.Context, d time.Duration, in *place) (Lease, error) {
	var kick chan struct{}
	var handed chan Lease
	if in != nil {
		kick, handed = in.kick, in.handed
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return Lease{}, ctx.Err()
	case <-t.C:
	case <-kick:
	case lease := <-handed:
		return lease, nil
	}
	return Lease{}, nil
}

// Extend resets the lease's TTL if the lock is still ours; false means it
// was lost. On a Redlock it extends the lock on every node that still
// holds it and succeeds on a majority.
func (l *Locker) Extend(ctx context.Context, lease Lease, ttl time.Duration) (bool, error) {
	if l.quorum != nil {
		return l.quorum.majority(ctx, "extend", l.quorum.extend, lease, ttl.Milliseconds())
	}
	n, err := l.extend.Run(ctx, l.rdb, []string{lease.Key}, lease.Token, ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("extend %s: %w", lease.Key, err)
	}
	return n == 1, nil
}

// Holder returns the token that holds key now, or "" if nobody does; on
// a Redlock, the token that holds it on a majority of the nodes.
func (l *Locker) Holder(ctx context.Context, key string) (string, error) {
	if l.quorum != nil {
		return l.quorum.holder(ctx, key)
	}
	v, err := l.rdb.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return v, err
}

// jitter returns a duration in [d/2, d], so waiters that collided once spread out.
func jitter(d time.Duration, rng *rand.Rand) time.Duration {
	half := int64(d / 2)
	if rng == nil {
		return time.Duration(half + rand.Int64N(half+1))
	}
	return time.Duration(half + rng.Int64N(half+1))
}

func newToken() (string, error) {
	var b [16]byte
	if _, err := cryptorand.Read(b[:]); err != nil {
		return "", fmt.Errorf("lock token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
