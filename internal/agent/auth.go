package agent

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
)

// MinToken is the shortest shared token accepted: it is all that stands
// between a listening coordinator and anyone who can reach its port.
const MinToken = 16

// CheckToken says why token cannot be used, or nil.
func CheckToken(token string) error {
	if len(token) < MinToken {
		return fmt.Errorf("the shared token must be at least %d characters (e.g. openssl rand -hex 16), got %d", MinToken, len(token))
	}
	return nil
}

// Who a proof is from: each side proves itself with its own label, so
// that one side's proof can never be replayed as the other's.
const (
	fromCoordinator = "hammer coordinator v1"
	fromAgent       = "hammer agent v1"
)

// proof proves that who holds the token on the TLS session whose keying
// material is bound: an HMAC under the token of who, the binding and the
// challenge's nonce. The token itself never crosses the network.
func proof(token, who string, bound, nonce []byte) []byte {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(who))
	m.Write([]byte{0})
	m.Write(bound)
	m.Write(nonce)
	return m.Sum(nil)
}

// newNonce is a fresh random challenge.
func newNonce() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return b
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
