package target

import (
	"strings"
)

// The placeholder names of a target file, as they are written between
// double braces: {{redis_url}}. Which of them a field may hold is fixed by
// the format (see Load).
const (
	// VarRedisURL is the Redis a replica must use (maybe a proxy hammer
	// puts in front of it).
	VarRedisURL = "redis_url"
	// VarPGURL is the PostgreSQL database URL a replica must use.
	VarPGURL = "pg_url"
	// VarPGSchema is the race's own schema, which the service must use.
	VarPGSchema = "pg_schema"
	// VarKeyPrefix starts every Redis key the service writes.
	VarKeyPrefix = "key_prefix"
	// VarPort is the replica's loopback port.
	VarPort = "port"
	// VarReplica is the replica's 0-based index.
	VarReplica = "replica"
	// VarLockTTLMS is the lock TTL hammer chose for the race, in ms.
	VarLockTTLMS = "lock_ttl_ms"
	// VarSector is the sector raced for (always 1).
	VarSector = "sector"
	// VarSeats is the number of seats of the sector.
	VarSeats = "seats"
	// VarRequestID is unique per request, across races and runs too (the
	// race's IDPrefix, then hammer's id of the attempt), and the same for
	// both copies of a duplicated request.
	VarRequestID = "request_id"
	// VarContender names the contender that sends a request: p<proc>-g<goroutine>.
	VarContender = "contender"
)

// placeholder is one {{name}} found in a string: its name and where it
// starts and ends (s[start:end] is the whole "{{name}}").
type placeholder struct {
	name       string
	start, end int
	// spaced is set when the name had spaces around it ({{ name }}):
	// such a placeholder is never expanded.
	spaced bool
}

// scan finds the placeholders of s in order. Text between "{{" and "}}"
// that is not a name (JSON such as {{"a":1}}, for instance) is no
// placeholder and stays as it is.
func scan(s string) []placeholder {
	var out []placeholder
	for i := 0; ; {
		open := strings.Index(s[i:], "{{")
		if open < 0 {
			return out
		}
		open += i
		closing := strings.Index(s[open+2:], "}}")
		if closing < 0 {
			return out
		}
		end := open + 2 + closing + 2
		inner := s[open+2 : end-2]
		name := strings.TrimSpace(inner)
		if isName(name) {
			out = append(out, placeholder{name: name, start: open, end: end, spaced: name != inner})
			i = end
		} else {
			i = open + 1
		}
	}
}

// isName reports whether s can name a placeholder: a letter or an
// underscore, then letters, digits or underscores.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// Placeholders returns the names of the placeholders s holds, in order,
// with repeats.
func Placeholders(s string) []string {
	var names []string
	for _, p := range scan(s) {
		names = append(names, p.name)
	}
	return names
}

// Expand replaces every {{name}} of s whose name vals holds by its value,
// in one pass: a value is never expanded in turn. Placeholders vals does
// not hold stay as they are, so a string can be expanded in stages (the
// request's {{sector}} before the race, its {{request_id}} per request).
// Nothing else in s is interpreted: SQL and JSON pass through untouched.
func Expand(s string, vals map[string]string) string {
	ps := scan(s)
	if len(ps) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, p := range ps {
		v, ok := vals[p.name]
		if !ok || p.spaced {
			continue
		}
		b.WriteString(s[last:p.start])
		b.WriteString(v)
		last = p.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// The sets of placeholders the fields of a target file may hold.
func envVars() []string {
	return []string{VarRedisURL, VarPGURL, VarPGSchema, VarKeyPrefix, VarPort, VarReplica, VarLockTTLMS}
}

func sqlVars() []string { return []string{VarSector, VarSeats} }

func lockKeyVars() []string { return []string{VarSector, VarSeats, VarKeyPrefix} }

func requestVars() []string { return []string{VarSector, VarSeats, VarRequestID, VarContender} }

// allowedVars returns the placeholders the field at path (keys and list
// indexes from the top of the file) may hold; none for a field the format
// expands nothing in.
func allowedVars(path []string) []string {
	switch {
	case match(path, "service", "env", "*"), match(path, "variants", "*", "env", "*"):
		return envVars()
	case match(path, "setup"), match(path, "truth", "ledger"), match(path, "truth", "sector"):
		return sqlVars()
	case match(path, "lock_key"):
		return lockKeyVars()
	case match(path, "request", "path"), match(path, "request", "body"), match(path, "request", "headers", "*"):
		return requestVars()
	}
	return nil
}

// match reports whether path is pattern, where "*" stands for any one key.
func match(path []string, pattern ...string) bool {
	if len(path) != len(pattern) {
		return false
	}
	for i, p := range pattern {
		if p != "*" && p != path[i] {
			return false
		}
	}
	return true
}
