package driver

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/wire"
)

// remoteProc stands in for a worker on an agent whose output is out.
type remoteProc struct{ out io.Reader }

func (remoteProc) send(any) error                     { return nil }
func (remoteProc) closeInput()                        {}
func (p remoteProc) output() io.Reader                { return p.out }
func (remoteProc) signal(syscall.Signal) (int, error) { return 0, nil }
func (remoteProc) kill()                              {}
func (remoteProc) wait() (bool, error)                { return false, nil }
func (remoteProc) ended() bool                        { return true }
func (remoteProc) pid() int                           { return 42 }
func (remoteProc) where() string                      { return "agent 0 (host, 10.0.0.2:1)" }
func (remoteProc) lastErr() string                    { return "" }

// TestCollectTellsBadOutputFromLostAgent: a worker on an agent that writes
// a line that is not a message is reported as that worker's bad output,
// not as its agent lost (which stops the race); an output that ends with
// the agent's loss is the loss.
func TestCollectTellsBadOutputFromLostAgent(t *testing.T) {
	tests := []struct {
		name, want, not string
		out             io.Reader
	}{
		{"bad line", "worker 0: bad output", "the race was stopped", strings.NewReader("not a message\n")},
		{"agent lost", "the race was stopped", "bad output",
			iotest.ErrReader(fmt.Errorf("agent 0 (host, 10.0.0.2:1) sent nothing for 3s: %w", agent.ErrLost))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fleet{ws: []*worker{{proc: remoteProc{out: tt.out}}}, events: make(chan event, 16), quit: make(chan struct{})}
			defer close(f.quit)
			f.listen()
			_, _, _, incomplete := f.collect(context.Background(), Options{Timeout: 10 * time.Second}, &striker{}, nil, time.Now().UnixNano())
			got := strings.Join(incomplete, "; ")
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
				t.Errorf("incomplete = %q, want %q and not %q", got, tt.want, tt.not)
			}
		})
	}
}

// wrapProc is a worker whose output is out; it counts the wraps sent to
// it and, if wrapped is set, closes wrapped at the first (and when
// killed).
type wrapProc struct {
	remoteProc
	wraps   *int
	wrapped io.Closer
}

func (p wrapProc) send(v any) error {
	if c, ok := v.(wire.Control); ok && c.Wrap {
		*p.wraps++
		if *p.wraps == 1 && p.wrapped != nil {
			p.wrapped.Close()
		}
	}
	return nil
}

func (p wrapProc) kill() {
	if p.wrapped != nil {
		p.wrapped.Close()
	}
}

// TestWrapWaitsForEveryWorker: the coordinator tells its workers to wrap
// up only once every one has finished or its output has ended, tells each
// once, and tells none whose output has ended.
func TestWrapWaitsForEveryWorker(t *testing.T) {
	wraps := make([]int, 3)
	f := &fleet{events: make(chan event, 16), quit: make(chan struct{})}
	for p := range wraps {
		f.ws = append(f.ws, &worker{proc: wrapProc{wraps: &wraps[p]}})
	}
	f.finish(0)
	f.ws[1].gone = true // its output ended, as collect notes it
	f.finish(1)
	if got := wraps[0] + wraps[2]; got != 0 {
		t.Fatalf("%d wraps sent while worker 2 races; want none", got)
	}
	f.finish(2)
	f.ws[0].gone = true // its output ends after it was told
	f.finish(0)
	if want := []int{1, 0, 1}; !slices.Equal(wraps, want) {
		t.Errorf("wraps sent = %v, want %v (one to each worker still running)", wraps, want)
	}
}

// TestCollectWrapsFinishedWorkers: workers that say finished and end
// their output only when told to wrap up are told, and the race ends
// complete.
func TestCollectWrapsFinishedWorkers(t *testing.T) {
	wraps := make([]int, 2)
	f := &fleet{events: make(chan event, 16), quit: make(chan struct{})}
	defer close(f.quit)
	for p := range wraps {
		r, w := io.Pipe()
		go func() { _, _ = io.WriteString(w, `{"finished":true}`+"\n") }()
		f.ws = append(f.ws, &worker{proc: wrapProc{remoteProc: remoteProc{out: r}, wraps: &wraps[p], wrapped: w}})
	}
	f.listen()
	_, _, _, incomplete := f.collect(context.Background(), Options{Timeout: 5 * time.Second}, &striker{}, nil, time.Now().UnixNano())
	if len(incomplete) > 0 || !slices.Equal(wraps, []int{1, 1}) {
		t.Errorf("incomplete %q, wraps sent %v; want a complete race and one wrap to each worker", incomplete, wraps)
	}
}
