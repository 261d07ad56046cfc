package agent

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"testing"
)

// framed is body behind its 4-byte length.
func framed(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// FuzzReadFrame feeds the frame decoder what a stranger may send before
// proving the token: it returns a frame or an error, never panics, never
// reads a body over the limit, and a frame it takes survives being sent
// again.
func FuzzReadFrame(f *testing.F) {
	for _, fr := range []frame{
		{Kind: kindPake, Protocol: Protocol, Pake: []byte(`{"Role":0}`)},
		{Kind: kindConfirm, Proof: bytes.Repeat([]byte{7}, 32)},
		{Kind: kindHello, Protocol: Protocol, Version: "v1", Host: "h"},
		{Kind: kindOut, Seq: 3, Line: json.RawMessage(`{"a":1}`)},
	} {
		b, _ := json.Marshal(fr)
		f.Add(framed(b))
	}
	f.Add([]byte{0, 0, 0, 2, '{', '}'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 9, 'n', 'u', 'l', 'l'})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := readFrame(bytes.NewReader(data), maxHandshakeFrame)
		if err != nil {
			return
		}
		if n := binary.BigEndian.Uint32(data); n > maxHandshakeFrame {
			t.Fatalf("took a frame of %d bytes", n)
		}
		again, err := json.Marshal(fr)
		if err != nil {
			t.Fatalf("a frame taken cannot be sent: %v", err)
		}
		back, err := readFrame(bytes.NewReader(framed(again)), maxFrame)
		if err != nil {
			t.Fatalf("a frame sent again cannot be read: %v", err)
		}
		if b2, _ := json.Marshal(back); !bytes.Equal(b2, again) {
			t.Fatalf("frame changed on its way: %s, then %s", again, b2)
		}
	})
}

// FuzzExchange feeds each side of the token exchange a share from a
// stranger: it gives a key or an error, never a panic, and a key only
// for a share of the other side on the curve.
func FuzzExchange(f *testing.F) {
	a, _ := newExchange(token, roleAgent)
	c, _ := newExchange(token, roleCoordinator)
	f.Add(a.share())
	f.Add(c.share())
	f.Add([]byte(`{"Role":0,"Xᵤ":1,"Xᵥ":2}`))
	f.Add([]byte(`{"Role":1,"Yᵤ":0,"Yᵥ":0}`))
	f.Add([]byte(`{"Role":0,"Xᵤ":null}`))
	f.Fuzz(func(t *testing.T, share []byte) {
		for _, role := range []int{roleAgent, roleCoordinator} {
			ex, err := newExchange(token, role)
			if err != nil {
				t.Fatal(err)
			}
			key, err := ex.key(share)
			if err == nil && (len(key) == 0 || checkShare(share, 1-role) != nil) {
				t.Fatalf("role %d took share %q", role, share)
			}
		}
	})
}

// peerTLS is one TLS connection over an in-memory pipe: ours, and the
// stranger's end, whose every byte from us is collected.
func peerTLS(t *testing.T, server bool) (ours net.Conn, theirs net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	cfg, err := serverTLS()
	if err != nil {
		t.Fatal(err)
	}
	if server {
		return tls.Server(a, cfg), tls.Client(b, clientTLS())
	}
	return tls.Client(a, clientTLS()), tls.Server(b, cfg)
}

// strangerSays writes script to theirs once its TLS handshake is done,
// closes its side, and returns every frame it was sent meanwhile.
func strangerSays(theirs net.Conn, script []byte) <-chan []frame {
	got := make(chan []frame, 1)
	go func() {
		defer theirs.Close()
		if err := theirs.(*tls.Conn).Handshake(); err != nil {
			got <- nil
			return
		}
		go func() { _, _ = theirs.Write(script); _ = theirs.(*tls.Conn).CloseWrite() }()
		var frames []frame
		for {
			f, err := readFrame(theirs, maxFrame)
			if err != nil {
				got <- frames
				return
			}
			frames = append(frames, f)
		}
	}()
	return got
}

// handshakeSeeds are frame sequences a stranger might send.
func handshakeSeeds() [][]byte {
	a, _ := newExchange("a-wrong-guess-0000", roleAgent)
	c, _ := newExchange("a-wrong-guess-0000", roleCoordinator)
	enc := func(fs ...frame) []byte {
		var out []byte
		for _, f := range fs {
			b, _ := json.Marshal(f)
			out = append(out, framed(b)...)
		}
		return out
	}
	return [][]byte{
		enc(frame{Kind: kindPake, Protocol: Protocol, Pake: a.share()}, frame{Kind: kindConfirm, Proof: make([]byte, 32)}),
		enc(frame{Kind: kindPake, Pake: c.share()}, frame{Kind: kindConfirm, Proof: make([]byte, 32)}, frame{Kind: kindWelcome, Index: new(int)}),
		enc(frame{Kind: kindHello, Protocol: Protocol, Version: "v1"}),
		enc(frame{Kind: kindRefused, Reason: "\x1b[2J"}),
		{0, 0, 0, 3, 'n', 'u', 'l'},
	}
}

// FuzzHandshake plays a stranger without the token against each side's
// handshake, sending the fuzzed bytes as its frames: the coordinator
// never admits it nor confirms the token to it, and the agent never
// joins it nor says who it is (its hello) — whatever the stranger sends.
func FuzzHandshake(f *testing.F) {
	for _, s := range handshakeSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		if len(script) > 4*maxHandshakeFrame {
			return
		}
		ours, theirs := peerTLS(t, true)
		sent := strangerSays(theirs, script)
		l := &Listener{o: ListenOptions{Token: token, Version: "v1", Log: io.Discard}, gate: newGate()}
		if a := l.handshake(ours, "fuzz"); a != nil {
			t.Fatalf("the coordinator admitted a stranger: %+v", a)
		}
		for _, fr := range <-sent {
			if fr.Kind == kindConfirm || fr.Kind == kindWelcome || fr.Version != "" {
				t.Fatalf("the coordinator sent a stranger %+v", fr)
			}
		}
		ours, theirs = peerTLS(t, false)
		sent = strangerSays(theirs, script)
		index, err := hello(&link{conn: ours}, JoinOptions{Addr: "fuzz", Token: token, Version: "v1", Host: "h"})
		ours.Close()
		if err == nil {
			t.Fatalf("the agent joined a stranger as agent %d", index)
		}
		for _, fr := range <-sent {
			if fr.Kind == kindHello || fr.Host != "" || fr.Version != "" {
				t.Fatalf("the agent told a stranger %+v", fr)
			}
		}
	})
}
