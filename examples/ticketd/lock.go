package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// errLockTimeout means the lock stayed taken for the whole LOCK_WAIT_MS.
var errLockTimeout = errors.New("lock wait timed out")

// releaseScript deletes the lock only while it still holds the caller's
// token, so a holder whose lock expired never deletes the next holder's.
const releaseScript = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`

// locker is a single-instance Redis lock: SET key token NX PX ttl to take
// it, the owner-checked script to give it back.
type locker struct {
	rdb     *redis.Client
	release *redis.Script
	ttl     time.Duration // how long a lock lives if its holder never releases it
	wait    time.Duration // how long acquire keeps retrying a taken lock
	log     *slog.Logger
}

// newLocker returns a locker over rdb.
func newLocker(rdb *redis.Client, ttl, wait time.Duration, log *slog.Logger) *locker {
	return &locker{rdb: rdb, release: redis.NewScript(releaseScript), ttl: ttl, wait: wait, log: log}
}

// with runs fn while holding the lock key and releases it afterwards. It
// returns errLockTimeout if the lock could not be had within the wait, a
// Redis error, or whatever fn returned. A failed release does not change
// fn's result (the sale is decided by then; the TTL frees the lock), so
// it is logged here instead of returned.
func (l *locker) with(ctx context.Context, key string, fn func() error) error {
	token, err := l.acquire(ctx, key)
	if err != nil {
		return err
	}
	fnErr := fn()
	ours, err := l.unlock(context.WithoutCancel(ctx), key, token)
	switch {
	case err != nil:
		l.log.Warn("lock release failed", "key", key, "err", err)
	case !ours:
		l.log.Warn("lock expired before release", "key", key, "ttl", l.ttl)
	}
	return fnErr
}

// acquire tries SET NX PX until it takes the lock, sleeping 1–16 ms (at
// random) between tries, and returns the token that proves ownership.
func (l *locker) acquire(ctx context.Context, key string) (string, error) {
	token, err := newToken()
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(l.wait)
	for {
		// go-redis sends the TTL as PX (or as EX when it is whole seconds).
		err := l.rdb.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: l.ttl}).Err()
		switch {
		case err == nil:
			return token, nil
		case !errors.Is(err, redis.Nil):
			return "", fmt.Errorf("acquire %s: %w", key, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return "", errLockTimeout
		}
		sleep := min(time.Duration(1+mrand.N(16))*time.Millisecond, left)
		t := time.NewTimer(sleep)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", ctx.Err()
		case <-t.C:
		}
	}
}

// unlock deletes key if it still holds token; false means the lock had
// expired (and may belong to someone else now).
func (l *locker) unlock(ctx context.Context, key, token string) (bool, error) {
	n, err := l.release.Run(ctx, l.rdb, []string{key}, token).Int()
	if err != nil {
		return false, fmt.Errorf("release %s: %w", key, err)
	}
	return n == 1, nil
}

// newToken returns 16 random bytes in hex: a value no other holder has.
func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("lock token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
