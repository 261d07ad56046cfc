package agent

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// weakToken is a human-chosen token of the minimum length: a short
// dictionary holds it.
const weakToken = "hammerhammer1234"

// dictionary is the attacker's list of guesses; the real token is in it.
var dictionary = []string{"password12345678", "hammer0123456789", "letmeinletmein12", weakToken, "hammerhammer4321"}

// listenWeak starts a coordinator holding weakToken.
func listenWeak(t *testing.T) (*Listener, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	ln, err := Listen(ListenOptions{Addr: "127.0.0.1:0", Token: weakToken, Version: "v1", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() { _, _ = ln.Accept(context.Background(), 1, 20*time.Second) }()
	return ln, log
}

// transcript is everything an attacker received from the coordinator on
// one connection, and what it needs to test guesses offline: its own
// exchange state and the TLS session's binding.
type transcript struct {
	mine     exchange // the attacker's half, built from its one committed guess
	bound    []byte
	received []frame
}

// attack connects as an agent that committed to guess, runs the token
// exchange as far as the coordinator lets it, and returns what it got.
func attack(t *testing.T, addr, guess string, from net.IP) transcript {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: from}, Timeout: 2 * time.Second}
	raw, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := tls.Client(raw, clientTLS())
	defer c.Close()
	lk := &link{conn: c}
	tr := transcript{}
	if tr.bound, err = binding(c); err != nil {
		return tr // closed before TLS: nothing received
	}
	if tr.mine, err = newExchange(guess, roleAgent); err != nil {
		t.Fatal(err)
	}
	if err := lk.send(frame{Kind: kindPake, Protocol: Protocol, Pake: tr.mine.share()}); err != nil {
		return tr
	}
	for {
		f, err := lk.recvMax(3*time.Second, maxHandshakeFrame)
		if err != nil {
			return tr // the coordinator closed the connection
		}
		tr.received = append(tr.received, f)
		switch f.Kind {
		case kindPake: // confirm what the committed guess gives
			key, err := tr.mine.key(f.Pake)
			if err != nil {
				t.Fatalf("the coordinator's share: %v", err)
			}
			_ = lk.send(frame{Kind: kindConfirm, Proof: confirmation(key, fromAgent, tr.bound)})
		case kindConfirm:
			return tr
		}
	}
}

// verifies says whether the transcript lets the attacker check guess
// offline: it derives, from its own secret half of the exchange, the key
// the guess would give against the coordinator's share, and looks for
// the coordinator's confirmation of that key in anything it received
// (and, for the old handshake's sake, for any MAC keyed by the guess).
func (tr transcript) verifies(t *testing.T, guess string) bool {
	t.Helper()
	var theirs []byte
	for _, f := range tr.received {
		if f.Kind == kindPake {
			theirs = f.Pake
		}
	}
	var candidates [][]byte
	if theirs != nil {
		probe, err := newExchange(guess, roleAgent)
		if err != nil {
			t.Fatal(err)
		}
		// The attacker's own secret and share, with the guess's password.
		probe.p.Aα, probe.p.Aαᵤ, probe.p.Aαᵥ = tr.mine.p.Aα, tr.mine.p.Aαᵤ, tr.mine.p.Aαᵥ
		probe.p.Xᵤ, probe.p.Xᵥ = tr.mine.p.Xᵤ, tr.mine.p.Xᵥ
		if key, err := probe.key(theirs); err == nil {
			candidates = append(candidates, confirmation(key, fromCoordinator, tr.bound))
		}
	}
	m := hmac.New(sha256.New, []byte(guess))
	m.Write(tr.bound)
	candidates = append(candidates, m.Sum(nil))
	for _, f := range tr.received {
		for _, field := range [][]byte{f.Pake, f.Proof, []byte(f.Reason), []byte(f.Version)} {
			for _, c := range candidates {
				if len(field) > 0 && bytes.Contains(field, c) {
					return true
				}
			}
		}
	}
	return false
}

// TestOfflineGuessing runs the attack of issue 28 against a coordinator
// holding a weak token: a stranger who connects and speaks the protocol
// cannot verify any guess, the right one included, from what it
// received; only a stranger that committed the right guess to its share
// gets a confirmation it can check (the positive control: the check
// would see it). One connection is one guess.
func TestOfflineGuessing(t *testing.T) {
	ln, log := listenWeak(t)
	wrong := attack(t, ln.Addr(), "a-wrong-guess-000", net.IPv4(127, 0, 0, 1))
	for _, g := range dictionary {
		if wrong.verifies(t, g) {
			t.Fatalf("a stranger who guessed wrong verified %q offline from %d frames", g, len(wrong.received))
		}
	}
	if n := len(wrong.received); n != 2 || wrong.received[0].Kind != kindPake || wrong.received[1].Kind != kindRefused ||
		wrong.received[1].Reason != "wrong token" || wrong.received[0].Version != "" {
		t.Fatalf("the coordinator sent %+v to a stranger, want its share and a refusal, no version", wrong.received)
	}
	right := attack(t, ln.Addr(), weakToken, net.IPv4(127, 0, 0, 3))
	for _, g := range dictionary {
		if got, want := right.verifies(t, g), g == weakToken; got != want {
			t.Errorf("positive control: %q verifies = %v, want %v", g, got, want)
		}
	}
	if strings.Contains(log.String(), weakToken) || strings.Contains(log.String(), "a-wrong-guess") {
		t.Errorf("the coordinator's log holds a token or an attempt: %q", log.String())
	}
}

// TestFailedGuessesLimited: an address that guessed wrong failBurst
// times is closed before the exchange from then on, and told once in
// the log; another address still gets its exchange.
func TestFailedGuessesLimited(t *testing.T) {
	ln, log := listenWeak(t)
	guesser := net.IPv4(127, 0, 0, 2)
	for i := range failBurst {
		if tr := attack(t, ln.Addr(), "a-wrong-guess-000", guesser); len(tr.received) != 2 {
			t.Fatalf("guess %d got %d frames, want the exchange and a refusal", i+1, len(tr.received))
		}
	}
	for range 3 {
		if tr := attack(t, ln.Addr(), "a-wrong-guess-000", guesser); len(tr.received) != 0 {
			t.Fatalf("guess past the limit got %+v, want the connection closed first", tr.received)
		}
	}
	if n := strings.Count(log.String(), "refused a connection from 127.0.0.2:"); n != 1 || !strings.Contains(log.String(), "too many failed handshakes") {
		t.Errorf("log %q: want the limit said once for 127.0.0.2", log.String())
	}
	if tr := attack(t, ln.Addr(), "a-wrong-guess-000", net.IPv4(127, 0, 0, 4)); len(tr.received) != 2 {
		t.Errorf("another address got %d frames, want its exchange", len(tr.received))
	}
}

// TestJoinBesideSilentConnections: 100 connections from one address that
// never speak (half of them not even TLS) do not keep a real agent from
// another address out.
func TestJoinBesideSilentConnections(t *testing.T) {
	ln, log := listen(t, "v1")
	accepted := make(chan error, 1)
	go func() {
		as, err := ln.Accept(context.Background(), 1, 15*time.Second)
		if err == nil {
			as[0].Close()
		}
		accepted <- err
	}()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 5)}}
	for i := range 100 {
		c, err := d.Dial("tcp", ln.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if i%2 == 1 {
			tc := tls.Client(c, clientTLS())
			go func() { _ = tc.Handshake() }()
		}
	}
	joined := join(ln.Addr(), nil)
	if err := <-accepted; err != nil {
		t.Fatalf("the real agent did not join beside 100 silent connections: %v; log:\n%s", err, log.String())
	}
	select {
	case err := <-joined:
		if err != nil {
			t.Errorf("agent: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the agent did not end after the coordinator's goodbye")
	}
}

// TestCheckTokenCharacters: the length rule counts characters as typed.
func TestCheckTokenCharacters(t *testing.T) {
	tests := []struct {
		name, token string
		ok          bool
	}{
		{name: "4 emoji, 16 bytes", token: strings.Repeat("🔨", 4)},
		{name: "15 characters", token: strings.Repeat("a", 15)},
		{name: "16 characters", token: strings.Repeat("a", 16), ok: true},
		{name: "16 emoji", token: strings.Repeat("🔨", 16), ok: true},
		{name: "not UTF-8", token: strings.Repeat("\xff", 20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckToken(tt.token); (err == nil) != tt.ok {
				t.Errorf("CheckToken = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestExchangeRefusesBadShares: a share that is not the other side's, not
// JSON or not on the curve is an error, never a panic or a key.
func TestExchangeRefusesBadShares(t *testing.T) {
	coord, err := newExchange(token, roleCoordinator)
	if err != nil {
		t.Fatal(err)
	}
	own, _ := newExchange(token, roleCoordinator)
	for name, share := range map[string][]byte{
		"empty":          nil,
		"not JSON":       []byte("{"),
		"own role":       own.share(),
		"missing point":  []byte(`{"Role":0}`),
		"negative":       []byte(`{"Role":0,"Xᵤ":-1,"Xᵥ":1}`),
		"off the curve":  []byte(`{"Role":0,"Xᵤ":1,"Xᵥ":1}`),
		"past the field": []byte(`{"Role":0,"Xᵤ":1` + strings.Repeat("0", 100) + `,"Xᵥ":1}`),
	} {
		if key, err := coord.key(share); err == nil || key != nil {
			t.Errorf("%s: key %x, err %v; want refused", name, key, err)
		}
	}
	agent, _ := newExchange(token, roleAgent)
	c2, _ := newExchange(token, roleCoordinator)
	k1, err1 := c2.key(agent.share())
	k2, err2 := agent.key(c2.share())
	if err := errors.Join(err1, err2); err != nil || !bytes.Equal(k1, k2) {
		t.Fatalf("the same token gave keys %x and %x (%v)", k1, k2, err)
	}
}

// TestStrangerCannotHoldAccept: a stranger still in its handshake when the
// coordinator stops waiting is cut off; it does not hold Accept up for
// the handshake's own timeouts (5 s for TLS, 5 s for the first frame).
func TestStrangerCannotHoldAccept(t *testing.T) {
	ln, _ := listen(t, "v1")
	raw, err := net.Dial("tcp", ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	c := tls.Client(raw, clientTLS())
	go func() { _ = c.Handshake() }() // TLS, then silence
	began := time.Now()
	if _, err := ln.Accept(context.Background(), 1, 300*time.Millisecond); err == nil {
		t.Fatal("Accept without an agent succeeded")
	}
	// Well under handshakeTimeout: the stranger's connection was closed.
	if took := time.Since(began); took > handshakeTimeout/2 {
		t.Errorf("Accept returned %s after its 300ms timeout, held up by a silent stranger", took)
	}
}

// TestOtherProtocolRefusedAtOnce: an agent that reaches a coordinator of
// another protocol (it opens with a frame of its own) is refused at once,
// naming the protocol, instead of dialling again until --join-timeout.
func TestOtherProtocolRefusedAtOnce(t *testing.T) {
	cfg, err := serverTLS()
	if err != nil {
		t.Fatal(err)
	}
	old, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	go func() {
		c, err := old.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = (&link{conn: c}).send(frame{Kind: "challenge", Protocol: 2, Version: "v0"})
		time.Sleep(time.Second)
	}()
	err = within(t, join(old.Addr().String(), func(o *JoinOptions) { o.Timeout = time.Minute }), 10*time.Second)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "protocol 2; this agent speaks 3") {
		t.Fatalf("agent at a protocol-2 coordinator: %v, want refused naming both protocols", err)
	}
}
