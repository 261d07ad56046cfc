// Package agent is the link between a coordinator and the agents that run
// its workers on other hosts: a TCP connection carrying length-framed JSON
// frames, opened by a handshake in which each side proves the shared
// token by a password-authenticated key exchange (nothing either side
// sends lets a party without the token test a guess offline), then the
// protocol and hammer versions are checked, then kept
// alive by heartbeats both ways. Over it the coordinator estimates each
// agent's clock offset (an NTP-style exchange of pings), starts one worker
// process per race on the agent, writes to the worker's stdin, reads its
// stdout and signals or kills it; the agent does all of that to its own
// child, never the coordinator to another host.
//
// The coordinator's side is Listen, Listener.Accept and Agent; the agent's
// side is Join. What the worker lines mean is the driver's business: this
// package carries them.
package agent

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// Protocol is the version of the frames below; a peer speaking another
// one is refused.
const Protocol = 3

// Timing of the link. A peer that sends nothing (not even a heartbeat)
// for LostAfter is taken as lost: a run learns of a dead agent, and an
// agent of a dead coordinator, within LostAfter plus one read.
const (
	beatEvery = time.Second
	LostAfter = 3 * time.Second
	// handshakeTimeout bounds the exchange that opens a connection.
	handshakeTimeout = 5 * time.Second
	// maxFrame bounds one frame: a worker's line holds one attempt, or its
	// encoded histograms.
	maxFrame = 16 << 20
)

// Frame kinds. Both sides send pake and confirm while they prove the
// token (auth.go). The coordinator then sends welcome, refused, ping,
// start, in, eof, signal, kill and bye; the agent sends hello, pong,
// started, out, signaled (its answer to signal, with the request's number
// in T1: Reason says why the signal could not be sent, "" if it was) and
// exited; both send beat.
const (
	kindPake     = "pake"
	kindConfirm  = "confirm"
	kindHello    = "hello"
	kindWelcome  = "welcome"
	kindRefused  = "refused"
	kindPing     = "ping"
	kindPong     = "pong"
	kindBeat     = "beat"
	kindStart    = "start"
	kindStarted  = "started"
	kindIn       = "in"
	kindEOF      = "eof"
	kindOut      = "out"
	kindSignal   = "signal"
	kindSignaled = "signaled"
	kindKill     = "kill"
	kindExited   = "exited"
	kindBye      = "bye"
)

// frame is one message on the link; Kind says which fields are set.
type frame struct {
	Kind string `json:"k"`

	// Handshake: a pake frame carries one side's share of the key
	// exchange (the agent's, the protocol too), a confirm frame its
	// confirmation of the key in Proof; then the hello carries the
	// agent's versions, its index hint and host name, the welcome the
	// index it was given, a refusal why.
	Protocol int    `json:"protocol,omitempty"`
	Version  string `json:"version,omitempty"`
	Pake     []byte `json:"pake,omitempty"`
	Proof    []byte `json:"proof,omitempty"`
	Index    *int   `json:"index,omitempty"`
	Host     string `json:"host,omitempty"`
	Reason   string `json:"reason,omitempty"`

	// Clock exchange: T1 the coordinator's send time of a ping, T2 and T3
	// the agent's receive and send times of its pong (Unix ns, each on
	// its own clock). A signal request and its answer carry the request's
	// number in T1.
	T1 int64 `json:"t1,omitempty"`
	T2 int64 `json:"t2,omitempty"`
	T3 int64 `json:"t3,omitempty"`

	// Seq numbers the workers an agent starts: start carries it, every
	// frame about a worker (in, eof, signal, kill, started, out, exited)
	// too, so that a late frame of an abandoned worker is never taken for
	// the next one's, either way.
	Seq int `json:"seq,omitempty"`

	// Worker: its configuration (start), a line to its stdin (in) or from
	// its stdout (out), its pid (started), a signal to send it, and how it
	// ended (exited: the exit code, or the signal that killed it, and the
	// end of its stderr).
	Line   json.RawMessage `json:"line,omitempty"`
	Pid    int             `json:"pid,omitempty"`
	Sig    int             `json:"sig,omitempty"`
	Code   int             `json:"code,omitempty"`
	Stderr string          `json:"stderr,omitempty"`
}

// link is one framed connection: one writer at a time, one reader.
type link struct {
	conn net.Conn
	mu   sync.Mutex // serialises writes
}

// send writes f as one frame.
func (l *link) send(f frame) error {
	body, err := json.Marshal(f)
	if err != nil {
		return err
	}
	buf := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.conn.SetWriteDeadline(time.Now().Add(LostAfter))
	_, err = l.conn.Write(buf)
	return err
}

// maxHandshakeFrame bounds a frame read before the peer proved the
// token: a stranger gets no more of the coordinator's memory than this.
const maxHandshakeFrame = 8 << 10

// recv reads the next frame, failing when none (not even a heartbeat)
// arrives within wait.
func (l *link) recv(wait time.Duration) (frame, error) { return l.recvMax(wait, maxFrame) }

// recvMax is recv for frames of at most limit bytes.
func (l *link) recvMax(wait time.Duration, limit uint32) (frame, error) {
	_ = l.conn.SetReadDeadline(time.Now().Add(wait))
	f, err := readFrame(l.conn, limit)
	if err != nil && !errors.Is(err, errBadFrame) {
		return f, quiet(err, wait)
	}
	return f, err
}

// errBadFrame is wrapped by the errors of a frame that arrived whole but
// cannot be taken: too long, or not JSON of a frame.
var errBadFrame = errors.New("bad frame")

// readFrame reads one frame of at most limit bytes from r: a 4-byte
// big-endian length, then that many bytes of JSON. A length over limit is
// refused unread.
func readFrame(r io.Reader, limit uint32) (frame, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return frame{}, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > limit {
		return frame{}, fmt.Errorf("%w: sent a frame of %d bytes, over the %d-byte limit", errBadFrame, n, limit)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return frame{}, err
	}
	var f frame
	if err := json.Unmarshal(body, &f); err != nil {
		return frame{}, fmt.Errorf("%w: %w", errBadFrame, err)
	}
	return f, nil
}

// quiet words a read error: a deadline becomes "sent nothing for …".
func quiet(err error, wait time.Duration) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("sent nothing for %s", wait)
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("closed the connection")
	case errors.Is(err, syscall.ECONNRESET):
		return errors.New("reset the connection")
	}
	return fmt.Errorf("broke the connection: %w", err)
}

// beat sends a heartbeat every beatEvery until stop is closed or a send
// fails.
func (l *link) beat(stop <-chan struct{}) {
	t := time.NewTicker(beatEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if l.send(frame{Kind: kindBeat}) != nil {
				return
			}
		}
	}
}
