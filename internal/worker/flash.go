package worker

import (
	"context"
	"math/rand/v2"
	"sync"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/wire"
)

// flash starts the contenders of a closed-model race whose every attempt
// first waits in line for hammer's own lock (strategy.Contender.Lined)
// without a goroutine each: at the go signal one loop stamps each
// contender's start and puts it in the line (strategy.Contender.Begin),
// and a contender gets a goroutine only when its turn comes or it is sent
// home. Woken one by one, 12,500 parked goroutines took a worker some 17
// ms on a shared core, each resuming on a cold stack to stamp and park
// again; the loop does the same for each in a fraction of a microsecond
// (docs/design/2026-12-06-flash-sale.md).
type flash struct {
	c        *builtin
	attempts []*history.Attempt
	rngs     []*rand.Rand
	out      *outbox
	done     sync.WaitGroup
}

// newFlash is the flash start of a worker, or nil when its race is not one
// it can start: a contender of another kind, the open model, several
// attempts or copies of a request per contender, or a lock not waited for
// in hammer's own line. It makes every contender's record and random
// source now, before the go signal.
func newFlash(cfg *wire.Config, c Contender, out *outbox) *flash {
	b, ok := c.(*builtin)
	if !ok || cfg.Rate > 0 || cfg.Attempts != 1 || cfg.Fault.Copies() != 1 || !b.c.Lined() {
		return nil
	}
	f := &flash{c: b, out: out, attempts: make([]*history.Attempt, cfg.Goroutines), rngs: make([]*rand.Rand, cfg.Goroutines)}
	for g := range cfg.Goroutines {
		f.attempts[g] = newAttempt(cfg, g, wire.RequestID(cfg.Proc, g, 0))
		f.rngs[g] = newRNGs(cfg, g, 1)[0]
	}
	f.done.Add(cfg.Goroutines)
	return f
}

// begin begins every contender's attempt, in the order of their numbers,
// as the line will serve them.
func (f *flash) begin(ctx context.Context) {
	end := f.end
	for g, a := range f.attempts {
		f.c.c.Begin(ctx, a, f.rngs[g], end)
	}
	f.attempts, f.rngs = nil, nil // each attempt's goroutine holds its own
}

// end records a contender's finished attempt.
func (f *flash) end(a *history.Attempt) {
	f.out.attempt(a)
	f.done.Done()
}
