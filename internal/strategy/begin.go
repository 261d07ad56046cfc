package strategy

import (
	"context"
	"math/rand/v2"
	"sync"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/hammerlock"
)

// Lined reports whether Begin can make this contender's attempts: its lock
// is hammer's own and waited for in line (with handoff), and no fault is
// injected (a fault's points and schedule are kept to Attempt).
func (c *Contender) Lined() bool {
	own, ok := c.Lock.(*RedisLock)
	return ok && c.Faults == nil && own.Locker != nil && own.Locker.Handoff(own.Key)
}

// Begin makes attempt a as Attempt does, but without a goroutine while a
// waits in line for the lock: it stamps a's start and joins the line, and
// the rest of the attempt runs on a goroutine of its own, started when a's
// turn comes, or, when it is sent home (a sold-out hint, its wait over, ctx
// ended), on the one goroutine that ends those of the contender (see
// homecoming). end is called with a once it is over: on that goroutine, or
// before Begin returns when the sold-out hint answers at once. A worker
// starts a flash sale's contenders with it in one loop at the go signal,
// instead of waking a goroutine for each. Call it only when Lined.
func (c *Contender) Begin(ctx context.Context, a *history.Attempt, rng *rand.Rand, end func(*history.Attempt)) {
	a.Invoke = now()
	if c.SoldOut != nil && c.SoldOut.Known() {
		a.Outcome, a.Hinted = history.SoldOut, true
		c.finish(a)
		end(a)
		return
	}
	own := c.Lock.(*RedisLock)
	if !own.Join(ctx, func(t hammerlock.Ticket) {
		resume := func() {
			lease, err := own.Resume(ctx, t, rng)
			if c.acquired(ctx, ctx, a, err) {
				c.sellHolding(ctx, a, lease)
			}
			c.finish(a)
			end(a)
		}
		if t.SentHome() {
			c.home.add(resume)
			return
		}
		go resume()
	}) {
		panic("strategy: Begin of a contender whose lock has no line (call it only when Lined)")
	}
}

// homecoming ends, one after the other on one goroutine, the attempts that
// Begin put in line and that were sent home: all of a line's waiters at
// once when the sector sold out, each an outcome to record and no command
// to send. A goroutine each would be tens of thousands started at once, each
// with a stack. Its zero value is ready; add is called with the line's
// lock held (hammerlock.Locker.Join), the ends run without it.
type homecoming struct {
	mu      sync.Mutex
	ends    []func()
	running bool
}

// add queues end, and starts the goroutine that runs the queue if none
// runs.
func (h *homecoming) add(end func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ends = append(h.ends, end)
	if !h.running {
		h.running = true
		go h.run()
	}
}

// run runs the queued ends until none is left.
func (h *homecoming) run() {
	for {
		h.mu.Lock()
		ends := h.ends
		h.ends = nil
		if len(ends) == 0 {
			h.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		for _, end := range ends {
			end()
		}
	}
}
