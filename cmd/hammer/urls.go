package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/stack"
)

// checkURLs refuses the server URLs an external stack would be given when
// they cannot work, before anything starts: one missing, a control
// character, a URL Redis or PostgreSQL cannot parse, a port out of range.
// The error names where the URL came from (--redis-url or
// $HAMMER_REDIS_URL) and never quotes it: it may hold a password.
func (f *raceFlags) checkURLs() error {
	kind, _ := stack.ParseKind(f.stackKind)
	if kind == stack.Docker || kind == stack.Local {
		return nil // the stack says it ignores them
	}
	hasRedis, hasPG := f.redisURL != "", f.pgURL != ""
	switch {
	case hasRedis && !hasPG:
		return fmt.Errorf("%s is set but neither --pg-url nor $%s: an external stack needs both", f.redisFrom, envPGURL)
	case hasPG && !hasRedis:
		return fmt.Errorf("%s is set but neither --redis-url nor $%s: an external stack needs both", f.pgFrom, envRedisURL)
	case kind == stack.External && !hasRedis:
		return fmt.Errorf("--stack external needs --redis-url and --pg-url (or $%s and $%s)", envRedisURL, envPGURL)
	case !hasRedis:
		return nil
	case strings.TrimSpace(f.redisURL) == "":
		return fmt.Errorf("%s holds only spaces: give a Redis URL", f.redisFrom)
	case strings.TrimSpace(f.pgURL) == "":
		return fmt.Errorf("%s holds only spaces: give a PostgreSQL URL", f.pgFrom)
	}
	// The whole list first: a control character at either end would be
	// trimmed away with the spaces around its URLs.
	if err := noControl(f.redisURL); err != nil {
		return fmt.Errorf("%s: %w", f.redisFrom, err)
	}
	for _, u := range f.redisURLs() {
		if err := checkRedisURL(u); err != nil {
			return fmt.Errorf("%s: %w", f.redisFrom, err)
		}
	}
	if err := checkPGURL(f.pgURL); err != nil {
		return fmt.Errorf("%s: %w", f.pgFrom, err)
	}
	return nil
}

// checkRedisURL says why u is not a Redis URL hammer can dial, or nil;
// an empty u (a node left out of a list) is left to checkNodes.
func checkRedisURL(u string) error {
	if u == "" {
		return nil
	}
	if err := noControl(u); err != nil {
		return err
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		return fmt.Errorf("malformed Redis URL: %s", parseCause(err))
	}
	if opts.Network == "unix" {
		return nil
	}
	_, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return fmt.Errorf("malformed Redis URL: %s", parseCause(err))
	}
	return checkPort(port, 1)
}

// checkPGURL says why u is not a PostgreSQL URL (or keyword/value
// string) hammer can connect with, or nil.
func checkPGURL(u string) error {
	if err := noControl(u); err != nil {
		return err
	}
	if _, err := pgx.ParseConfig(u); err != nil {
		return fmt.Errorf("malformed PostgreSQL URL: %s", parseCause(err))
	}
	return nil
}

// noControl refuses a URL holding a control character (a pasted newline,
// a tab): no server address holds one.
func noControl(u string) error {
	if i := strings.IndexFunc(u, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return fmt.Errorf("the URL holds a control character (byte %d, %#02x)", i, u[i])
	}
	return nil
}

// parseCause is why a URL did not parse, without any copy of the URL: a
// *url.Error quotes it whole and pgx's errors quote it with the password
// masked as well as it can; a bad percent-escape would quote a piece of
// the password.
func parseCause(err error) string {
	var esc url.EscapeError
	if errors.As(err, &esc) {
		return "a % not followed by two hex digits (escape a % in a password as %25)"
	}
	text := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		text = strings.ReplaceAll(text, ue.Error(), ue.Err.Error())
	}
	if rest, ok := strings.CutPrefix(text, "cannot parse `"); ok {
		if i := strings.LastIndex(rest, "`: "); i >= 0 {
			text = rest[i+len("`: "):]
		}
	}
	return text
}

// checkHostPort says why addr is not a host:port hammer can listen on or
// dial, or nil: the host an IP address or a DNS name (required when
// needHost), the port a number from minPort to 65535.
func checkHostPort(addr string, needHost bool, minPort int) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want host:port, got %q", addr)
	}
	if err := checkPort(port, minPort); err != nil {
		return err
	}
	switch {
	case host == "" && needHost:
		return fmt.Errorf("want host:port, got no host in %q", addr)
	case host == "":
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	return checkHostName(host)
}

// checkPort says why port is not a port number from minPort to 65535, or
// nil.
func checkPort(port string, minPort int) error {
	n, err := strconv.Atoi(port)
	if err != nil || n < minPort || n > 65535 {
		return fmt.Errorf("port %q is not a number from %d to 65535", port, minPort)
	}
	return nil
}

// checkHostName says why host is neither an IP address nor a DNS name, or
// nil. A name whose last label is all digits (999.1.1.1) is taken for a
// mistyped IPv4 address.
func checkHostName(host string) error {
	name := strings.TrimSuffix(host, ".")
	labels := strings.Split(name, ".")
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" {
		return fmt.Errorf("host %q is not an IP address", host)
	}
	if len(name) > 253 {
		return fmt.Errorf("host name of %d characters is longer than 253", len(name))
	}
	for _, l := range labels {
		bad := strings.IndexFunc(l, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		})
		if l == "" || len(l) > 63 || bad >= 0 || l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("host %q is neither an IP address nor a host name", host)
		}
	}
	return nil
}
