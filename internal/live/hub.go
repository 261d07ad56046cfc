package live

import (
	"sync"
	"sync/atomic"
)

// Limits of what the hub holds, so that a long race or many browsers
// cannot grow hammer's memory without bound.
const (
	// DefaultBuffer is how many events a client may fall behind before
	// its events are dropped: about a minute of a race's ticks.
	DefaultBuffer = 256
	// MaxClients is how many browsers may follow the race at once.
	MaxClients = 32
	// maxTicks is how many ticks of one race a browser that connects late
	// is sent; past it every other one is forgotten (the curve keeps its
	// shape at half the resolution).
	maxTicks = 512
	// maxFaults is how many fault events a late browser is sent, the latest.
	maxFaults = 500 // fault and strike messages
)

// Hub fans messages out to clients, each through a bounded buffer:
// Publish never waits for a client; a client whose buffer is full loses
// the message, and the loss is counted (its own count, which its stream
// reports, and the hub's total, reported to onDrop). A client that
// connects late is first sent a replay of what it missed: every race,
// done and verdict message, the latest fault messages and a bounded
// series of each race's ticks.
type Hub struct {
	buffer int
	onDrop func() // may be nil

	mu      sync.Mutex
	clients map[*Client]struct{}
	closed  bool
	hello   Message
	log     []Message            // races, faults (trimmed), done
	ticks   map[string][]Message // by run
	order   []string             // runs in the order of their first tick
	faults  int                  // fault messages in log
	final   []Message            // the messages Close was given
}

// Client is one subscriber of a hub: its stream reads C until it is
// closed, then sends Final.
type Client struct {
	ch      chan Message
	dropped atomic.Int64
}

// NewHub returns a hub whose clients fall buffer messages behind at most
// (DefaultBuffer when buffer < 1); onDrop, if set, is called for every
// message a client lost.
func NewHub(buffer int, onDrop func()) *Hub {
	if buffer < 1 {
		buffer = DefaultBuffer
	}
	return &Hub{buffer: buffer, onDrop: onDrop, clients: map[*Client]struct{}{}, ticks: map[string][]Message{}}
}

// Buffer is how many messages a client may fall behind.
func (h *Hub) Buffer() int { return h.buffer }

// C is the client's messages; it is closed when the hub closes.
func (c *Client) C() <-chan Message { return c.ch }

// Dropped is how many messages the client lost so far.
func (c *Client) Dropped() int64 { return c.dropped.Load() }

// SetHello sets the message every stream opens with.
func (h *Hub) SetHello(m Message) {
	h.mu.Lock()
	h.hello = m
	h.mu.Unlock()
}

// Publish sends m to every client without waiting for any, and keeps it
// for the replay of clients that connect later; run names the race a
// tick belongs to. After Close it does nothing.
func (h *Hub) Publish(m Message, run string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.keep(m, run)
	for c := range h.clients {
		select {
		case c.ch <- m:
		default:
			c.dropped.Add(1)
			if h.onDrop != nil {
				h.onDrop()
			}
		}
	}
}

// keep adds m to the replay, within its bounds.
func (h *Hub) keep(m Message, run string) {
	switch m.Type {
	case TypeTick:
		ts, seen := h.ticks[run]
		if !seen {
			h.order = append(h.order, run)
		}
		if len(ts) >= maxTicks {
			// Keep every other tick, the last one always.
			half := ts[:0]
			for i := (len(ts) - 1) % 2; i < len(ts); i += 2 {
				half = append(half, ts[i])
			}
			ts = half
		}
		h.ticks[run] = append(ts, m)
	case TypeFault, TypeStrike:
		h.log = append(h.log, m)
		if h.faults++; h.faults > maxFaults {
			for i, old := range h.log {
				if old.Type == TypeFault || old.Type == TypeStrike {
					h.log = append(h.log[:i], h.log[i+1:]...)
					h.faults--
					break
				}
			}
		}
	default:
		h.log = append(h.log, m)
	}
}

// Subscribe adds a client and returns it with the messages it missed,
// in an order the page can follow (hello, races and faults, then each
// race's ticks). It returns false when the hub is closed or holds
// MaxClients clients already.
func (h *Hub) Subscribe() (*Client, []Message, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.clients) >= MaxClients {
		return nil, nil, false
	}
	c := &Client{ch: make(chan Message, h.buffer)}
	h.clients[c] = struct{}{}
	var replay []Message
	if h.hello.Type != "" {
		replay = append(replay, h.hello)
	}
	replay = append(replay, h.log...)
	for _, run := range h.order {
		replay = append(replay, h.ticks[run]...)
	}
	return c, replay, true
}

// Unsubscribe removes c; messages published later are not sent to it.
func (h *Hub) Unsubscribe(c *Client) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
}

// Clients is how many clients are subscribed.
func (h *Hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// Close ends every client's messages: each stream sends what its buffer
// still holds, then final (the verdict, the end), which no slow client
// can lose. Publish and Subscribe do nothing after it. Close is
// idempotent; only the first call's final counts.
func (h *Hub) Close(final ...Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed, h.final = true, final
	for c := range h.clients {
		close(c.ch)
	}
}

// Final is what Close was given, for the streams to send last.
func (h *Hub) Final() []Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.final
}
