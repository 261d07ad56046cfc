package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/redact"
)

const (
	// connectTimeout bounds one TCP connect to a server.
	connectTimeout = 3 * time.Second
	// pingTimeout bounds the check that a server answers.
	pingTimeout = 4 * time.Second
)

// redisOptions parses a Redis URL; the error wraps ErrBadConfig.
func redisOptions(rawURL string) (*redis.Options, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, badConfigf("malformed Redis URL: %s", redact.URLs(rawURL).String(causeText(err)))
	}
	opts.DialTimeout = connectTimeout
	opts.MaxRetries = -1 // callers retry themselves, within their deadline
	opts.DialerRetries = 1
	opts.ContextTimeoutEnabled = true // honour the ping deadline
	return opts, nil
}

// pgConfig parses a PostgreSQL URL; the error wraps ErrBadConfig.
func pgConfig(rawURL string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, badConfigf("malformed PostgreSQL URL: %s", redact.URLs(rawURL).String(causeText(err)))
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > connectTimeout {
		cfg.ConnectTimeout = connectTimeout
	}
	return cfg, nil
}

// causeText is err's message without the quoted copy of the URL that a
// *url.Error carries.
func causeText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// pingRedis sends one PING. It connects once by itself first, so that a
// server that is not (yet) listening fails without go-redis logging a
// "failed to dial" line to stderr.
func pingRedis(ctx context.Context, opts *redis.Options) error {
	network := opts.Network
	if network == "" {
		network = "tcp"
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, opts.Addr)
	if err != nil {
		return err
	}
	conn.Close()
	c := redis.NewClient(opts)
	defer c.Close()
	return c.Ping(ctx).Err()
}

// pingPG connects and runs SELECT 1.
func pingPG(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var one int
	return conn.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// pgAddr is host:port of cfg for messages (never the password).
func pgAddr(cfg *pgx.ConnConfig) string {
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
}

// checkServers pings both servers at once, each within pingTimeout, and
// checks that Redis lets hammer run a race's commands on its keys. The
// error names the server that failed (Redis, if both did): it wraps
// ErrBadConfig when a server refused the URL's credentials, database or
// rights (see checkRedisServer and checkPostgres), ErrUnavailable otherwise.
func checkServers(ctx context.Context, ropts *redis.Options, pcfg *pgx.ConnConfig) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	var pgErr error
	var wg sync.WaitGroup
	wg.Go(func() { pgErr = checkPostgres(ctx, pcfg) })
	redisErr := checkRedisServer(ctx, "redis", ropts)
	wg.Wait()
	if redisErr != nil {
		return redisErr
	}
	return pgErr
}

// checkRedisServer pings the Redis of opts, called name in messages, and
// probes its rights. WRONGPASS, NOAUTH and NOPERM wrap ErrBadConfig: the
// URL's user or password, or the user's ACL, is wrong; so does a URL
// that points at a server hammer cannot race on (see redisMisdirected).
// Anything else wraps ErrUnavailable.
func checkRedisServer(ctx context.Context, name string, opts *redis.Options) error {
	mask := redact.Passwords(opts.Password)
	step := "PING"
	err := pingRedis(ctx, opts)
	if err == nil {
		step = "hammer's probe of its commands"
		err = probeRedisRights(ctx, opts)
	}
	var rerr redis.Error
	if err == nil {
		return nil
	}
	if redisRefused(err) {
		return badConfigf("%s at %s refused hammer's user, password or rights: %s", name, redisWho(opts), mask.String(err.Error()))
	}
	if why, ok := redisMisdirected(err); ok {
		return badConfigf("%s at %s cannot be raced on: %s (%s)", name, redisWho(opts), why, mask.String(err.Error()))
	}
	if errors.As(err, &rerr) {
		return unavailablef("%s at %s answered %s with an error: %s", name, opts.Addr, step, mask.String(err.Error()))
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return unavailablef("%s at %s refused the connection: nothing listens there (%s)", name, opts.Addr, mask.String(err.Error()))
	}
	if opts.TLSConfig != nil && speaksPlain(ctx, opts) {
		return badConfigf("%s at %s does not speak TLS: it answers PING in plain text, so its URL is redis://, not rediss://", name, opts.Addr)
	}
	if !timedOut(ctx, err) {
		return unavailablef("%s at %s failed %s: %s", name, opts.Addr, step, mask.String(err.Error()))
	}
	return unavailablef("%s at %s did not answer %s within %s: %s", name, opts.Addr, step, pingTimeout, mask.String(err.Error()))
}

// speaksPlain reports whether the server at opts.Addr answers a PING sent
// in plain text within plainTimeout: a server without TLS, which takes a
// rediss:// URL's TLS handshake for the start of a command and waits for
// the rest. Only called once the TLS ping failed, whose deadline (ctx's)
// may have passed.
func speaksPlain(ctx context.Context, opts *redis.Options) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), plainTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", opts.Addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if conn.SetDeadline(deadline) != nil {
		return false
	}
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	first := make([]byte, 1)
	if _, err := io.ReadFull(conn, first); err != nil {
		return false
	}
	return first[0] == '+' || first[0] == '-' // PONG, or NOAUTH and the like
}

// plainTimeout bounds speaksPlain.
const plainTimeout = time.Second

// checkPostgres pings the PostgreSQL of cfg. A wrong password, a role that may
// not log in or lacks a privilege, and a database that does not exist
// wrap ErrBadConfig; anything else wraps ErrUnavailable.
func checkPostgres(ctx context.Context, cfg *pgx.ConnConfig) error {
	err := pingPG(ctx, cfg)
	if err == nil {
		return nil
	}
	msg := redact.Passwords(cfg.Password).String(err.Error())
	if why, ok := pgRefused(err); ok {
		return badConfigf("postgresql at %s (%s) refused hammer: %s", pgAddr(cfg), pgWho(cfg), why)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return unavailablef("postgresql at %s refused the connection: nothing listens there (%s)", pgAddr(cfg), msg)
	}
	if strings.Contains(err.Error(), pgNoTLS) {
		return badConfigf("postgresql at %s does not offer TLS, which the URL's sslmode requires: use sslmode=disable or prefer (%s)", pgAddr(cfg), msg)
	}
	if !timedOut(ctx, err) {
		return unavailablef("postgresql at %s failed SELECT 1: %s", pgAddr(cfg), msg)
	}
	return unavailablef("postgresql at %s did not answer SELECT 1 within %s: %s", pgAddr(cfg), pingTimeout, msg)
}

// timedOut reports whether a check failed for want of an answer in time:
// its deadline passed, or a read or dial timed out on the way.
func timedOut(ctx context.Context, err error) bool {
	var ne net.Error
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// pgNoTLS is how pgx says that a server without TLS refused the URL's
// sslmode=require (or verify-ca, verify-full); it has no error value for it.
const pgNoTLS = "server refused TLS connection"

// pollReady calls probe until it succeeds, the deadline passes or stop is
// closed (the server exited). It returns the last probe error on timeout.
func pollReady(ctx context.Context, timeout time.Duration, stop <-chan struct{}, probe func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		actx, acancel := context.WithTimeout(ctx, time.Second)
		err := probe(actx)
		acancel()
		if err == nil {
			return nil
		}
		select {
		case <-stop:
			return errExited
		case <-ctx.Done():
			return fmt.Errorf("not ready within %s: %w", timeout, err)
		case <-tick.C:
		}
	}
}
