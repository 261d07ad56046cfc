package agent

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"time"
)

// The link is TLS 1.3 with a certificate the coordinator makes up when it
// starts listening: it carries the servers' URLs, passwords included.
// Neither side trusts a certificate authority; each proves instead that it
// holds the shared token by a key exchange keyed by the token, whose
// confirmations are bound to the TLS session's exported keying material
// (channel binding, RFC 9266's idea; see auth.go). Someone in between
// holds two different sessions, so without the token they can confirm to
// neither side, and the token never crosses the network.

// exporterLabel names the keying material both sides export.
const exporterLabel = "EXPORTER-hammer-agent-v1"

// serverTLS is the coordinator's TLS configuration with a fresh
// self-signed certificate.
func serverTLS() (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: "hammer coordinator"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(30 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS13}, nil
}

// clientTLS is the agent's TLS configuration: the certificate is not
// checked against an authority (there is none); the confirmations bound
// to the session authenticate the coordinator instead.
func clientTLS() *tls.Config {
	return &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13} //nolint:gosec // authenticated by channel binding, see above
}

// binding completes c's TLS handshake within handshakeTimeout and returns
// the session's keying material the confirmations are bound to.
func binding(c net.Conn) ([]byte, error) {
	tc := c.(*tls.Conn)
	_ = tc.SetDeadline(time.Now().Add(handshakeTimeout))
	defer tc.SetDeadline(time.Time{})
	if err := tc.Handshake(); err != nil {
		return nil, err
	}
	st := tc.ConnectionState()
	return st.ExportKeyingMaterial(exporterLabel, nil, 32)
}
