package agent

import (
	"io"
	"sync"
)

// queue is a worker's output as the coordinator reads it: lines are put
// in as frames arrive and never wait for the reader, so that one worker
// nobody reads any more cannot hold up the frames behind it (its exit,
// the next race's pings).
type queue struct {
	mu     sync.Mutex
	ready  *sync.Cond
	chunks [][]byte
	err    error // io.EOF or why the output ended, once closed
}

func newQueue() *queue {
	q := &queue{}
	q.ready = sync.NewCond(&q.mu)
	return q
}

// put appends b unless the queue was closed.
func (q *queue) put(b []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.chunks = append(q.chunks, b)
		q.ready.Signal()
	}
}

// close ends the queue: readers get what is queued, then err (io.EOF for
// a clean end).
func (q *queue) close(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.err = err
		q.ready.Broadcast()
	}
}

// Read implements io.Reader.
func (q *queue) Read(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.chunks) == 0 && q.err == nil {
		q.ready.Wait()
	}
	if len(q.chunks) == 0 {
		return 0, q.err
	}
	n := copy(p, q.chunks[0])
	if n == len(q.chunks[0]) {
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
	} else {
		q.chunks[0] = q.chunks[0][n:]
	}
	return n, nil
}

var _ io.Reader = (*queue)(nil)
