// Package spans exports the attempts of a race against a user's service
// as OpenTelemetry spans over OTLP/HTTP (protobuf): one span per
// attempt, with the trace id and span id of the traceparent its request
// carried (package tracecontext), so that the service's own spans of the
// request are its children in the same trace. The coordinator exports
// them from the history after the race, on its own clock, so that no
// worker process talks to the collector and nothing changes the race.
package spans

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DefaultPath is the path of OTLP/HTTP's traces endpoint, added to an
// endpoint given without one.
const DefaultPath = "/v1/traces"

// ParseEndpoint reads an OTLP/HTTP endpoint as --otlp takes it: an http
// or https URL with a host, such as http://127.0.0.1:4318 (the path
// /v1/traces is added when it has none) or
// https://tempo.example.com/otlp/v1/traces (used as it is). It returns
// the URL the spans are posted to.
func ParseEndpoint(arg string) (string, error) {
	s := withoutUserinfo(arg)
	u, err := url.Parse(arg)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL such as http://127.0.0.1:4318", s)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%q is not an http or https URL such as http://127.0.0.1:4318 (OTLP over gRPC is not supported)", s)
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("%q has no host: give one, as in http://127.0.0.1:4318", s)
	case u.User != nil:
		return "", errors.New("the URL holds a user or password, which would show in messages: give credentials as headers in $OTEL_EXPORTER_OTLP_HEADERS instead")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", fmt.Errorf("%q has a query or a fragment, which an OTLP endpoint does not take", s)
	case strings.ContainsAny(u.Host, " \t"):
		return "", fmt.Errorf("%q has a host with spaces", s)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%q: port %s is not one from 1 to 65535", s, p)
		}
	} else if _, _, err := net.SplitHostPort(u.Host); err == nil || strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("%q has an empty port", s)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = DefaultPath
	}
	return u.String(), nil
}

// withoutUserinfo is a URL to quote in a message: whatever stands
// before its last @ (a user and a password) but its scheme is left out.
func withoutUserinfo(s string) string {
	at := strings.LastIndex(s, "@")
	if at < 0 {
		return s
	}
	scheme := ""
	if i := strings.Index(s[:at], "://"); i >= 0 {
		scheme = s[:i+3]
	}
	return scheme + "…@" + s[at+1:]
}
