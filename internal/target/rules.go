package target

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hammer-load/hammer/history"
)

// Rule maps a response to an outcome: it matches a response with its
// status whose body meets its JSON condition, if it has one.
type Rule struct {
	// Status is the HTTP status the response must have.
	Status int `yaml:"status" json:"status"`
	// JSON is an extra condition on a field of the body; nil for none.
	JSON *Condition `yaml:"json" json:"json,omitempty"`
	// Outcome is sold, sold_out, rejected or lock_timeout (the service
	// gave up waiting for its lock: the sale was never tried).
	Outcome history.Outcome `yaml:"outcome" json:"outcome"`
	// Seat is the JSON pointer (RFC 6901) to the seat number in the
	// body; a rule of outcome sold has one, and matches only when it
	// points at a positive integer.
	Seat string `yaml:"seat" json:"seat,omitempty"`
}

// Condition is a rule's condition on a field of a JSON body.
type Condition struct {
	// Pointer is the JSON pointer (RFC 6901) to the field.
	Pointer string `yaml:"pointer" json:"pointer"`
	// Equals is the text the field must hold: a string's value, or the
	// JSON text of a number, true, false or null (no object or array
	// matches).
	Equals string `yaml:"equals" json:"equals"`
}

// Rules are the response rules of a target file, in file order.
type Rules []Rule

// Match maps a response, its status and body, to an outcome and, for a
// sale, the seat: by the first rule that matches. ok is false when no
// rule matches, and the outcome is then not known.
func (rs Rules) Match(status int, body []byte) (outcome history.Outcome, seat int, ok bool) {
	b := lazyBody{raw: body}
	for _, r := range rs {
		if !r.applies(status, &b) {
			continue
		}
		if r.Seat == "" {
			return r.Outcome, 0, true
		}
		if n, ok := positive(b.at(r.Seat)); ok {
			return r.Outcome, n, true
		}
	}
	return "", 0, false
}

// Miss says why no rule matched a response whose status (and condition)
// a rule with a seat has: the rule found no positive integer at its seat
// pointer. "" when no such rule has the response's status: the status
// itself is what no rule expects.
func (rs Rules) Miss(status int, body []byte) string {
	b := lazyBody{raw: body}
	for _, r := range rs {
		if r.Seat == "" || !r.applies(status, &b) {
			continue
		}
		v, found := b.at(r.Seat)
		if !found {
			return fmt.Sprintf("the %s rule's seat %s is not in the body", r.Outcome, r.Seat)
		}
		shown, _ := json.Marshal(v)
		return fmt.Sprintf("the %s rule's seat %s is %s, not a positive integer", r.Outcome, r.Seat, snippet(shown))
	}
	return ""
}

// applies reports whether r is a rule for a response of status and body
// b: its status, and its JSON condition if it has one. Its seat, if any,
// is Match's to read.
func (r Rule) applies(status int, b *lazyBody) bool {
	if r.Status != status {
		return false
	}
	if r.JSON == nil {
		return true
	}
	got, ok := text(b.at(r.JSON.Pointer))
	return ok && got == r.JSON.Equals
}

// lazyBody parses a JSON body when a rule first looks into it.
type lazyBody struct {
	raw    []byte
	parsed bool
	doc    any
	valid  bool
}

// at returns the value at the JSON pointer ptr; ok is false when the body
// is not JSON or holds no such value.
func (b *lazyBody) at(ptr string) (v any, ok bool) {
	if !b.parsed {
		b.parsed = true
		b.doc, b.valid = parseJSON(b.raw)
	}
	if !b.valid {
		return nil, false
	}
	return resolve(b.doc, ptr)
}

// parseJSON decodes one JSON document, keeping numbers as their text.
func parseJSON(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false // something follows the document
	}
	return doc, true
}

// resolve evaluates the JSON pointer ptr (RFC 6901) against doc.
func resolve(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := doc.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, false
			}
			doc = next
		case []any:
			i, ok := arrayIndex(tok, len(v))
			if !ok {
				return nil, false
			}
			doc = v[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// arrayIndex parses the reference token of an array element: a decimal
// number without leading zeros, below n.
func arrayIndex(tok string, n int) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') || strings.ContainsAny(tok, "+-") {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil && i < n
}

// text renders a scalar JSON value for comparison: a string as its value,
// a number, a boolean or null as its JSON text.
func text(v any, found bool) (string, bool) {
	if !found {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	case nil:
		return "null", true
	}
	return "", false
}

// positive returns the value as a seat number: a JSON number that is a
// positive integer.
func positive(v any, found bool) (int, bool) {
	num, ok := v.(json.Number)
	if !found || !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num.String())
	return n, err == nil && n > 0
}
