package agent

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
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
