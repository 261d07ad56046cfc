package target

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// holderWatch follows the holders of a service's lock from outside: Redis's
// MONITOR stream says which client sent which token in a SET of the lock
// key, and polling the key says when a new token holds it. The client's
// address maps to the replica that holds its socket.
type holderWatch struct {
	rdb     *redis.Client
	lockKey string
	owner   func(port int) (int, bool)

	mu     sync.Mutex
	tokens map[string]int // token -> client port that set it
}

// pollEvery is how often the lock key is read: a holder of a few
// milliseconds is seen while it still holds the lock.
const pollEvery = 200 * time.Microsecond

// run calls held with each new holder (numbered from 1) and the replica
// that holds it (-1 when its client could not be mapped), until ctx ends.
func (w *holderWatch) run(ctx context.Context, held func(n int64, proc int, token string)) error {
	lines := make(chan string, 1024)
	mon := w.rdb.Monitor(ctx, lines)
	mon.Start()
	defer mon.Stop()
	go w.follow(ctx, lines)
	var n int64
	last := ""
	for ctx.Err() == nil {
		v, err := w.rdb.Get(ctx, w.lockKey).Result()
		if err == nil && v != last {
			n++
			held(n, w.proc(ctx, v), v)
		}
		if err == nil || err == redis.Nil {
			last = v
		}
		sleepCtx(ctx, pollEvery)
	}
	return nil
}

// follow records, from MONITOR lines, which client port set which token
// on the lock key.
func (w *holderWatch) follow(ctx context.Context, lines <-chan string) {
	for {
		select {
		case <-ctx.Done():
			return
		case line := <-lines:
			port, token, ok := parseSet(line, w.lockKey)
			if ok {
				w.mu.Lock()
				w.tokens[token] = port
				w.mu.Unlock()
			}
		}
	}
}

// proc maps the client that set token to a replica, waiting a little for
// the MONITOR line that may trail the read of the key.
func (w *holderWatch) proc(ctx context.Context, token string) int {
	for range 50 {
		w.mu.Lock()
		port, ok := w.tokens[token]
		w.mu.Unlock()
		if ok {
			if r, ok := w.owner(port); ok {
				return r
			}
			return -1
		}
		sleepCtx(ctx, 100*time.Microsecond)
	}
	return -1
}

// parseSet reads a MONITOR line such as
//
//	1700000000.123456 [0 127.0.0.1:50312] "set" "key" "tok" "px" "150" "nx"
//
// and returns the client's port and the token when it is a SET of key.
func parseSet(line, key string) (port int, token string, ok bool) {
	open, close := strings.IndexByte(line, '['), strings.IndexByte(line, ']')
	if open < 0 || close < open {
		return 0, "", false
	}
	addr := strings.Fields(line[open+1 : close])
	if len(addr) != 2 {
		return 0, "", false
	}
	_, p, err := net.SplitHostPort(addr[1])
	if err != nil {
		return 0, "", false
	}
	args := quoted(line[close+1:])
	if len(args) < 3 || !strings.EqualFold(args[0], "set") || args[1] != key {
		return 0, "", false
	}
	port, err = strconv.Atoi(p)
	return port, args[2], err == nil
}

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

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
