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

// proof is the agent's answer to a challenge: an HMAC of the nonce under
// the token, so that the token itself never crosses the network.
func proof(token string, nonce []byte) []byte {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("hammer agent v1\x00"))
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
