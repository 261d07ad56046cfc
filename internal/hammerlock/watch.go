package hammerlock

import (
	"container/heap"
	"context"
)

// A waiter behind the head of a line does not select on its context as it
// waits: it receives from its turn alone, which costs a flash sale's start
// less than a select of two channels (docs/design/2026-12-06-flash-sale.md).
// The line watches each context its waiters wait with instead, once for
// all of them (context.AfterFunc), and sends home those whose context
// ended, with its error.

// ctxWatch is a line's watch on the contexts that share one Done channel:
// stop ends it; n counts the waiters behind the head that wait with them.
type ctxWatch struct {
	stop func() bool
	n    int
}

// watch counts p, which has just joined behind the head, among the
// waiters of its context, and starts watching the context if p is the
// first. A context that never ends is not watched. The caller holds q.mu.
func (q *line) watch(p *place) {
	done := p.ctx.Done()
	if done == nil {
		return
	}
	if w := q.watches[done]; w != nil {
		w.n++
		return
	}
	if q.watches == nil {
		q.watches = map[<-chan struct{}]*ctxWatch{}
	}
	q.watches[done] = &ctxWatch{n: 1, stop: context.AfterFunc(p.ctx, func() { q.ended(done) })}
}

// undue takes p out of the waiters behind the head (the heap by
// deadline) and uncounts it from its context's watch, which stops when p
// was its last. The caller holds q.mu.
func (q *line) undue(p *place) {
	heap.Remove(&q.due, p.slot)
	done := p.ctx.Done()
	if done == nil {
		return
	}
	w := q.watches[done]
	if w == nil {
		return
	}
	if w.n--; w.n == 0 {
		w.stop()
		delete(q.watches, done)
	}
}

// ended sends home, each with its context's error, the waiters behind the
// head whose context is done.
func (q *line) ended(done <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var gone []*place
	for _, p := range q.due {
		if p.ctx.Done() == done {
			gone = append(gone, p)
		}
	}
	for _, p := range gone {
		q.unlink(p)
		p.sendHome(p.ctx.Err())
	}
}
