package target

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
)

// Request is what every worker process needs to make attempts against the
// replicas of one race: the file's request with all but its per-request
// placeholders resolved, and its rules. The coordinator sends it as
// driver.Options.ContenderConfig; Connect decodes it.
type Request struct {
	// Replicas are the base URLs of the replicas (http://127.0.0.1:PORT),
	// without a trailing slash.
	Replicas []string `json:"replicas"`
	// Method is the HTTP method of every request.
	Method string `json:"method"`
	// Path is appended to a replica's base URL. It, the values of
	// Headers and Body hold no placeholder but {{request_id}} and
	// {{contender}}, filled in per request.
	Path string `json:"path"`
	// Headers are set on every request; a Host header sets the host.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the request body, sent as it is once expanded.
	Body string `json:"body,omitempty"`
	// Timeout bounds one request, from sending it to reading the body.
	Timeout time.Duration `json:"timeout_ns"`
	// Ready is the path the warm-up GETs on every replica; "/" when empty.
	Ready string `json:"ready,omitempty"`
	// Rules map a response to an outcome, first match first.
	Rules Rules `json:"rules"`
	// Relays, when set, are the ports on the coordinator's host where
	// hammer relays each replica (in Replicas order) for workers on
	// agents on other hosts: such a worker sends to
	// http://<the coordinator as its agent reached it>:<port> instead
	// (see Backend.RelayOn).
	Relays []int `json:"relays,omitempty"`
	// IDPrefix is the race's tag (IDPrefix), put before each attempt's
	// request id as {{request_id}} sends it.
	IDPrefix string `json:"id_prefix,omitempty"`
}

// IDPrefix tags the request ids of the race whose keys live under
// keyPrefix (unique per race and run): 8 hex digits (32 bits of a hash)
// and a dash, fit for a path, a header or JSON. hammer's request ids
// (p0-g12-a0) repeat in every race; a service that remembers request ids
// beyond the tables setup recreates (an idempotency cache, say) would
// otherwise answer a request with what it answered an earlier race's,
// and hammer would take that answer for this race's sale. The ledger is
// read back without the tag.
func IDPrefix(keyPrefix string) string {
	h := fnv.New32a()
	h.Write([]byte(keyPrefix))
	return fmt.Sprintf("%08x-", h.Sum32())
}

// untag removes the race's tag from the request ids of sales that have
// it; a row without it (one the setup inserted, say) keeps its id.
func untag(sales []history.Sale, prefix string) {
	for i := range sales {
		if id, ok := strings.CutPrefix(sales[i].RequestID, prefix); ok {
			sales[i].RequestID = id
		}
	}
}

// Resolve makes the Request of one race against the given replicas (their
// base URLs): the file's request with the placeholders vals holds expanded
// ({{sector}} and {{seats}}). {{request_id}} and {{contender}} are left
// for each request, even when vals holds them.
func (f *File) Resolve(replicas []string, vals map[string]string) Request {
	vals = maps.Clone(vals)
	delete(vals, VarRequestID)
	delete(vals, VarContender)
	headers := make(map[string]string, len(f.Request.Headers))
	for k, v := range f.Request.Headers {
		headers[k] = Expand(v, vals)
	}
	r := Request{
		Method:  f.Request.Method,
		Path:    Expand(f.Request.Path, vals),
		Headers: headers,
		Body:    Expand(f.Request.Body, vals),
		Timeout: f.Request.Timeout,
		Rules:   f.Responses,
	}
	for _, u := range replicas {
		r.Replicas = append(r.Replicas, strings.TrimRight(u, "/"))
	}
	if f.Service != nil {
		r.Ready = f.Service.Ready
	}
	return r
}

// check refuses a Request a worker cannot make attempts with.
func (r Request) check() error {
	switch {
	case len(r.Replicas) == 0:
		return errors.New("no replica to send requests to")
	case !validToken(r.Method):
		return fmt.Errorf("invalid method %q", r.Method)
	case !strings.HasPrefix(r.Path, "/") || (r.Ready != "" && !strings.HasPrefix(r.Ready, "/")):
		return fmt.Errorf("path %q or ready path %q does not start with /", r.Path, r.Ready)
	case r.Timeout <= 0:
		return fmt.Errorf("timeout %v is not positive", r.Timeout)
	case len(r.Rules) == 0:
		return errors.New("no response rule")
	case len(r.Relays) != 0 && len(r.Relays) != len(r.Replicas):
		return fmt.Errorf("%d relays for %d replicas", len(r.Relays), len(r.Replicas))
	}
	for _, p := range r.Relays {
		if p < 1 || p > 65535 {
			return fmt.Errorf("relay port %d is not a port", p)
		}
	}
	for i, rule := range r.Rules {
		if err := rule.check(); err != nil {
			return fmt.Errorf("response rule %d: %w", i, err)
		}
	}
	return nil
}

// check refuses a rule that cannot map a response to an outcome.
func (r Rule) check() error {
	switch r.Outcome {
	case history.Sold:
		if err := checkPointer(r.Seat); err != nil {
			return fmt.Errorf("seat: %w", err)
		}
	case history.SoldOut, history.Rejected, history.LockTimeout:
	default:
		return fmt.Errorf("outcome %q is not one of sold, sold_out, rejected, lock_timeout", r.Outcome)
	}
	if r.JSON != nil {
		return checkPointer(r.JSON.Pointer)
	}
	return nil
}

// replica is one replica the contender sends requests to.
type replica struct {
	// base is its base URL; name says which it is in the records:
	// "r<i> <host:port>".
	base, name string
}

// replicasOf names the replicas of r, checking that each base URL is one.
func replicasOf(r Request) ([]replica, error) {
	out := make([]replica, len(r.Replicas))
	for i, base := range r.Replicas {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("replica %d: %q is not a base URL such as http://127.0.0.1:8080", i, base)
		}
		host := u.Host
		if u.Port() == "" {
			port := map[string]string{"http": "80", "https": "443"}[u.Scheme]
			host = net.JoinHostPort(u.Hostname(), port)
		}
		out[i] = replica{base: base, name: fmt.Sprintf("r%d %s", i, host)}
	}
	return out, nil
}
