package agent

import (
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"unicode/utf8"

	"github.com/schollz/pake/v3"
)

// MinToken is the fewest characters a shared token may have: it is all
// that stands between a listening coordinator and anyone who can reach
// its port. `hammer token` makes one of 43.
const MinToken = 16

// CheckToken says why token cannot be used, or nil. Its length counts
// characters as typed, not bytes: four emoji are four characters.
func CheckToken(token string) error {
	if !utf8.ValidString(token) {
		return errors.New("the shared token is not valid UTF-8 text")
	}
	if n := utf8.RuneCountInString(token); n < MinToken {
		return fmt.Errorf("the shared token must be at least %d characters (hammer token makes one), got %d", MinToken, n)
	}
	return nil
}

// The handshake is a password-authenticated key exchange (PAKE2 of Boneh
// and Shoup, github.com/schollz/pake on P-256, the exchange croc uses)
// keyed by the token, then key confirmation bound to the TLS session:
//
//	agent → coordinator   pake: the agent's share (and the protocol)
//	coordinator → agent   pake: the coordinator's share
//	agent → coordinator   confirm: MAC of the agent's label and the TLS binding
//	coordinator → agent   confirm: the coordinator's, only once the agent's checked
//
// A share alone is a random point: nothing in it lets a party without
// the token test a guess. A party that sent a share of its own guess can
// test that one guess against the other side's confirmation, once per
// connection: the joining side confirms first, so an impostor agent
// gets "wrong token" and nothing more, and an impostor coordinator one
// guess per agent that dials it. Someone in between relaying both sides
// holds two TLS sessions, so neither confirmation matches the other's.

// Who a confirmation is from: each side confirms with its own label, so
// that one side's confirmation can never be replayed as the other's.
const (
	fromCoordinator = "hammer coordinator v3"
	fromAgent       = "hammer agent v3"
)

// pakeCurve is the group of the exchange.
const pakeCurve = "p256"

// Roles in the exchange: the agent starts it, the coordinator answers.
const (
	roleAgent       = 0
	roleCoordinator = 1
)

// pakeSecret is the exchange's password: the token hashed to the size of
// a P-256 scalar, so that every character of a long token counts.
func pakeSecret(token string) []byte {
	h := sha256.Sum256([]byte("hammer agent token\x00" + token))
	return h[:]
}

// exchange is one side's part of the key exchange.
type exchange struct{ p *pake.Pake }

// newExchange starts one side of the exchange under token; role is
// roleAgent or roleCoordinator.
func newExchange(token string, role int) (exchange, error) {
	p, err := pake.InitCurve(pakeSecret(token), role, pakeCurve)
	return exchange{p}, err
}

// share is what this side sends: its public values, marshalled.
func (e exchange) share() []byte { return e.p.Bytes() }

// key takes the other side's share and returns the session key both
// sides hold when they used the same token. A share that is malformed or
// not on the curve is an error, never a panic.
func (e exchange) key(peer []byte) ([]byte, error) {
	if err := checkShare(peer, 1-e.p.Role); err != nil {
		return nil, err
	}
	if err := e.p.Update(peer); err != nil {
		return nil, fmt.Errorf("bad token exchange: %w", err)
	}
	return e.p.SessionKey()
}

// checkShare checks that share is a share of role with its point's
// coordinates present and in the field: pake's own checks assume both.
func checkShare(share []byte, role int) error {
	var s struct {
		Role   int
		Xᵤ, Xᵥ *big.Int
		Yᵤ, Yᵥ *big.Int
	}
	if err := json.Unmarshal(share, &s); err != nil {
		return errors.New("bad token exchange: not a share")
	}
	x, y := s.Xᵤ, s.Xᵥ
	if role == roleCoordinator {
		x, y = s.Yᵤ, s.Yᵥ
	}
	p := elliptic.P256().Params().P
	for _, c := range []*big.Int{x, y} {
		if s.Role != role || c == nil || c.Sign() < 0 || c.Cmp(p) >= 0 {
			return errors.New("bad token exchange: not a point of the other side")
		}
	}
	return nil
}

// confirmation proves that who holds the session key of the exchange
// run on the TLS session whose keying material is bound.
func confirmation(key []byte, who string, bound []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(who))
	m.Write([]byte{0})
	m.Write(bound)
	return m.Sum(nil)
}

// versionMismatch says why a peer of protocol p and version v cannot
// talk to one of ours, or "".
func versionMismatch(ourVersion string, p int, v string) string {
	switch {
	case p != Protocol:
		return fmt.Sprintf("protocol %d against %d", p, Protocol)
	case v != ourVersion:
		return fmt.Sprintf("hammer %s against %s: coordinator and agents must run the same version", v, ourVersion)
	}
	return ""
}

// NewToken is a fresh shared token: 32 random bytes, URL-safe base64 (43
// characters).
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return base64.RawURLEncoding.EncodeToString(b)
}
