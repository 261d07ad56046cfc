package stack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
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

// checkServers pings both servers at once, each within pingTimeout; the
// error wraps ErrUnavailable and names the server that failed (Redis, if
// both did).
func checkServers(ctx context.Context, ropts *redis.Options, pcfg *pgx.ConnConfig) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	var pgErr error
	var wg sync.WaitGroup
	wg.Go(func() { pgErr = pingPG(ctx, pcfg) })
	redisErr := pingRedis(ctx, ropts)
	wg.Wait()
	if redisErr != nil {
		return unavailablef("redis at %s did not answer PING within %s: %s", ropts.Addr, pingTimeout, redact.Passwords(ropts.Password).String(redisErr.Error()))
	}
	if pgErr != nil {
		return unavailablef("postgresql at %s did not answer SELECT 1 within %s: %s", pgAddr(pcfg), pingTimeout, redact.Passwords(pcfg.Password).String(pgErr.Error()))
	}
	return nil
}

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
