package strategy

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// ErrHintedSoldOut ends a lock wait that the sold-out hint made pointless.
var ErrHintedSoldOut = errors.New("the sector sold out while the contender waited for the lock")

// SoldOutHint spares lock waiters a sold-out sector: once a contender was
// told "sold out" by the database, it says so in Redis (a key, and a
// message on the key's channel), and the others answer "sold out" instead
// of queueing for the lock only to read that from the database in turn.
//
// It is a hint, never the judge: only an answer of the database sets it,
// and it can only make a contender give up, never sell. Seats never come
// back in a race, so a hint once set stays true; a lost hint (Redis
// restarted or failed over, a dropped subscription) only means the waiters
// queue as they would without it.
type SoldOutHint struct {
	rdb redis.Cmdable
	key string
	// known is done once this process knows the sector sold out, and
	// soldOut true: read on every attempt, it is a load, not a channel.
	known   context.Context
	tell    context.CancelCauseFunc
	soldOut atomic.Bool
}

// NewSoldOutHint returns the hint kept in Redis under key.
func NewSoldOutHint(rdb redis.Cmdable, key string) *SoldOutHint {
	known, tell := context.WithCancelCause(context.Background())
	return &SoldOutHint{rdb: rdb, key: key, known: known, tell: tell}
}

// Channel is the Pub/Sub channel on which the hint is announced.
func (h *SoldOutHint) Channel() string { return h.key }

// Heard is called for a message on Channel: another process was told
// "sold out" by the database.
func (h *SoldOutHint) Heard() { h.learn() }

// Known reports whether this process already knows the sector sold out.
func (h *SoldOutHint) Known() bool { return h.soldOut.Load() }

// learn records that this process knows the sector sold out.
func (h *SoldOutHint) learn() {
	h.soldOut.Store(true)
	h.tell(ErrHintedSoldOut)
}

// whenKnown calls f once, in its own goroutine, when this process learns
// the sector sold out.
func (h *SoldOutHint) whenKnown(f func()) { context.AfterFunc(h.known, f) }

// Seen reads the hint: from what this process knows, else from Redis (one
// round trip). An error reads as not seen: the contender then queues.
func (h *SoldOutHint) Seen(ctx context.Context) bool {
	if h.Known() {
		return true
	}
	n, err := h.rdb.Exists(ctx, h.key).Result()
	if err == nil && n == 1 {
		h.learn()
		return true
	}
	return false
}

// Set records that the database answered "sold out", for this process at
// once and for the others through Redis.
func (h *SoldOutHint) Set(ctx context.Context) error {
	if h.Known() {
		return nil
	}
	h.learn()
	_, err := h.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, h.key, "1", 0)
		p.Publish(ctx, h.key, "")
		return nil
	})
	if err != nil {
		return fmt.Errorf("sold-out hint: %w", err)
	}
	return nil
}

// Bind returns ctx, also cancelled with ErrHintedSoldOut as soon as this
// process learns the sector sold out; stop releases it.
func (h *SoldOutHint) Bind(ctx context.Context) (context.Context, func()) {
	bound, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(h.known, func() { cancel(ErrHintedSoldOut) })
	return bound, func() { stop(); cancel(nil) }
}
