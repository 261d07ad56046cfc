package target

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
)

// holderWatch follows the holders of a service's lock from outside, in
// Redis's MONITOR stream: Redis runs commands one at a time and MONITOR
// shows them in that order, so a SET … NX of the lock key while the lock
// is free (never taken, released by a DEL, or past its TTL) is the next
// holder taking it. The line names the client's address, which maps to
// the replica that holds its socket.
type holderWatch struct {
	opt     *redis.Options // for MONITOR's own connection
	lockKey string
	owner   func(port int) (int, bool)
	// rescan, if set, maps the replicas' connections again once the
	// watch ended, so that claims not traced yet can be.
	rescan func()
}

// start starts calling held with each new holder (numbered from 1) and
// the replica that holds it (-1 when its client could not be traced), as
// soon as MONITOR shows it taking the lock, until ctx ends. It returns
// once MONITOR runs, with what waits for the watch's end and returns every
// claim on the lock it saw (see history.LockClaim), Run left empty.
func (w *holderWatch) start(ctx context.Context, held func(n int64, proc int, token string)) (func() ([]history.LockClaim, error), error) {
	conn, offset, err := monitor(ctx, w.opt)
	if err != nil {
		return nil, err
	}
	log := newClaimLog(w.owner)
	done := make(chan error, 1)
	go func() { done <- w.follow(ctx, conn, log, held) }()
	return func() ([]history.LockClaim, error) {
		err := <-done
		if w.rescan != nil {
			w.rescan()
		}
		return log.claims(offset), err
	}, nil
}

// reconnectFor is how long the watch keeps trying to follow MONITOR again
// when Redis dropped it (a restart, a failover), before it gives up.
const reconnectFor = 10 * time.Second

// follow reads the MONITOR stream until ctx ends, following it again on
// a new connection when Redis drops it: a Redis that restarted lost the
// lock with every other key, so the lock starts out free again.
func (w *holderWatch) follow(ctx context.Context, conn net.Conn, log *claimLog, held func(n int64, proc int, token string)) error {
	var n int64
	for {
		err := w.read(conn, &n, log, held)
		conn.Close()
		if ctx.Err() != nil {
			return nil
		}
		log.lost(log.last)
		deadline := time.Now().Add(reconnectFor)
		for conn = nil; conn == nil; {
			if conn, _, err = monitor(ctx, w.opt); err == nil || ctx.Err() != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		switch {
		case ctx.Err() != nil:
			if conn != nil {
				conn.Close()
			}
			return nil
		case conn == nil:
			return fmt.Errorf("monitor the lock: Redis dropped the stream and did not take it back within %s: %w", reconnectFor, err)
		}
	}
}

// read reads one MONITOR connection until it ends, numbering holders on
// from *n.
func (w *holderWatch) read(conn net.Conn, n *int64, log *claimLog, held func(n int64, proc int, token string)) error {
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var st lockState
	for sc.Scan() {
		m, ok := parseMonitor(sc.Text())
		if !ok || len(m.args) < 2 || m.args[1] != w.lockKey {
			continue
		}
		log.observe(m)
		if port, token, ok := st.stepLine(m); ok {
			*n++
			proc, found := w.owner(port)
			if !found {
				proc = -1
			}
			held(*n, proc, token)
		}
	}
	return sc.Err()
}

// lockState is the lock as the MONITOR stream tells it.
type lockState struct {
	holder  string  // token of the holder; "" when free
	expires float64 // when the holder's TTL runs out (MONITOR's clock, s)
}

// step reads one MONITOR line and reports a client taking the lock: its
// port and token.
func (s *lockState) step(line, key string) (port int, token string, taken bool) {
	m, ok := parseMonitor(line)
	if !ok || len(m.args) < 2 || m.args[1] != key {
		return 0, "", false
	}
	return s.stepLine(m)
}

// stepLine is step on a parsed line of the lock's key.
func (s *lockState) stepLine(m monitorLine) (port int, token string, taken bool) {
	switch strings.ToLower(m.args[0]) {
	case "del", "unlink":
		s.holder = ""
	case "set":
		if len(m.args) < 3 || !hasFlag(m.args[3:], "nx") {
			return 0, "", false
		}
		if s.holder != "" && m.at < s.expires {
			return 0, "", false // held: this SET NX fails
		}
		s.holder, s.expires = m.args[2], m.at+ttlSeconds(m.args[3:])
		return m.port, m.args[2], m.port > 0
	}
	return 0, "", false
}

// monitorLine is one command of a MONITOR stream.
type monitorLine struct {
	at   float64 // Redis's clock, seconds
	ns   int64   // the same, in Unix nanoseconds
	port int     // the client's port; 0 for a script's own commands
	args []string
}

// parseMonitor reads a MONITOR line such as
//
//	+1700000000.123456 [0 127.0.0.1:50312] "set" "key" "tok" "px" "150" "nx"
func parseMonitor(line string) (monitorLine, bool) {
	line = strings.TrimPrefix(line, "+")
	open := strings.IndexByte(line, '[')
	end := strings.Index(line[max(open, 0):], "] ") // an IPv6 client is [0 [::1]:5000]
	if open < 1 || end < 0 {
		return monitorLine{}, false
	}
	close := open + end
	stamp := strings.TrimSpace(line[:open])
	at, err := strconv.ParseFloat(stamp, 64)
	ns, ok := stampNanos(stamp)
	if err != nil || !ok {
		return monitorLine{}, false
	}
	m := monitorLine{at: at, ns: ns, args: quoted(line[close+1:])}
	if addr := strings.Fields(line[open+1 : close]); len(addr) == 2 {
		if _, p, err := net.SplitHostPort(addr[1]); err == nil {
			m.port, _ = strconv.Atoi(p)
		}
	}
	return m, true
}

// hasFlag reports whether opts holds flag, in any case.
func hasFlag(opts []string, flag string) bool {
	for _, o := range opts {
		if strings.EqualFold(o, flag) {
			return true
		}
	}
	return false
}

// ttlSeconds reads a SET's PX or EX option; without one the key never
// expires.
func ttlSeconds(opts []string) float64 {
	for i := 0; i+1 < len(opts); i++ {
		n, err := strconv.ParseFloat(opts[i+1], 64)
		switch {
		case err != nil:
		case strings.EqualFold(opts[i], "px"):
			return n / 1000
		case strings.EqualFold(opts[i], "ex"):
			return n
		}
	}
	return math.Inf(1)
}

// monitor opens a connection of its own to Redis and turns it into a
// MONITOR stream (go-redis's own MONITOR loses lines). offset is Redis's
// clock minus hammer's, in ns, as TIME told it just before (zero when
// the two agree within the round trip: one host's clock).
func monitor(ctx context.Context, opt *redis.Options) (net.Conn, int64, error) {
	var d net.Dialer
	// conn is the dialled connection itself, never reset: the AfterFunc
	// below closes it when ctx ends, whichever way monitor returned.
	conn, err := d.DialContext(ctx, "tcp", opt.Addr)
	if err != nil {
		return nil, 0, fmt.Errorf("monitor the lock: %w", err)
	}
	context.AfterFunc(ctx, func() { conn.Close() })
	r := bufio.NewReader(conn)
	send := func(args ...string) error {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := conn.Write([]byte(b.String())); err != nil {
			return err
		}
		reply, err := r.ReadString('\n')
		if err == nil && strings.HasPrefix(reply, "-") {
			err = errors.New(strings.TrimSpace(reply[1:]))
		}
		return err
	}
	if opt.Password != "" {
		args := []string{"AUTH", opt.Password}
		if opt.Username != "" {
			args = []string{"AUTH", opt.Username, opt.Password}
		}
		if err := send(args...); err != nil {
			conn.Close()
			return nil, 0, fmt.Errorf("monitor the lock: %w", err)
		}
	}
	offset, err := clockOffset(conn, r)
	if err != nil {
		conn.Close()
		return nil, 0, fmt.Errorf("monitor the lock: TIME: %w", err)
	}
	if err := send("MONITOR"); err != nil {
		conn.Close()
		return nil, 0, fmt.Errorf("monitor the lock: %w", err)
	}
	return &bufConn{Conn: conn, r: r}, offset, nil
}

// clockOffset asks Redis for its clock (TIME) and returns how far it is
// from hammer's: zero when within half the round trip and a millisecond
// (one host's clock), or when Redis refuses TIME.
func clockOffset(conn net.Conn, r *bufio.Reader) (int64, error) {
	sent := time.Now().UnixNano()
	if _, err := conn.Write([]byte("*1\r\n$4\r\nTIME\r\n")); err != nil {
		return 0, err
	}
	var lines [5]string // *2, $n, seconds, $n, microseconds
	for i := range lines {
		l, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		lines[i] = strings.TrimSpace(l)
		if i == 0 && strings.HasPrefix(lines[0], "-") {
			return 0, nil // TIME refused (an ACL): take the clocks as one
		}
	}
	got := time.Now().UnixNano()
	sec, err1 := strconv.ParseInt(lines[2], 10, 64)
	us, err2 := strconv.ParseInt(lines[4], 10, 64)
	if lines[0] != "*2" || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected answer %q", lines)
	}
	off := sec*1e9 + us*1e3 - (sent+got)/2
	if abs(off) <= (got-sent)/2+int64(time.Millisecond) {
		return 0, nil
	}
	return off, nil
}

// abs is the absolute value of n.
func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// bufConn is a connection whose reads go through the reader that already
// buffered part of what it sent.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// quoted splits the double-quoted, backslash-escaped arguments of a
// MONITOR line.
func quoted(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			return out
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' && j+1 < len(s) {
				j++
			}
			b.WriteByte(s[j])
		}
		out = append(out, b.String())
		if j >= len(s) {
			return out
		}
		s = s[j+1:]
	}
}
