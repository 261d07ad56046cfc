// Command ticketd is a small seat-reservation service for hammer to race:
// several replicas sell the seats of one sector from PostgreSQL, by one of
// four strategies (STRATEGY), optionally serialised by a Redis lock. See
// README.md for its environment and target.yaml for how hammer runs it.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	err := run(ctx, os.Getenv, log)
	stop()
	if err != nil {
		log.Error("ticketd stopped", "err", err)
		os.Exit(1)
	}
}

// config is the service's environment.
type config struct {
	port, redisURL, pgURL, schema, keyPrefix, strategy string
	lockTTL, lockWait                                  time.Duration
}

// schemaName is what PG_SCHEMA may hold: a plain lower-case identifier,
// which search_path takes as it is.
var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// loadConfig reads the environment through getenv.
func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		port: getenv("PORT"), redisURL: getenv("REDIS_URL"), pgURL: getenv("PG_URL"),
		schema: getenv("PG_SCHEMA"), keyPrefix: getenv("KEY_PREFIX"), strategy: getenv("STRATEGY"),
	}
	for _, name := range []string{"PORT", "REDIS_URL", "PG_URL", "STRATEGY"} {
		if getenv(name) == "" {
			return c, fmt.Errorf("%s is not set", name)
		}
	}
	if c.schema != "" && !schemaName.MatchString(c.schema) {
		return c, fmt.Errorf("PG_SCHEMA %q: want a lower-case identifier", c.schema)
	}
	var err error
	if c.lockTTL, err = millis(getenv, "LOCK_TTL_MS", 10000); err != nil {
		return c, err
	}
	c.lockWait, err = millis(getenv, "LOCK_WAIT_MS", 30000)
	return c, err
}

// millis reads a positive number of milliseconds, def when unset.
func millis(getenv func(string) string, name string, def int) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return time.Duration(def) * time.Millisecond, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q: want a positive number of milliseconds", name, v)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// run serves until ctx ends, then shuts down gracefully.
func run(ctx context.Context, getenv func(string) string, log *slog.Logger) error {
	c, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	pgCfg, err := pgxpool.ParseConfig(c.pgURL)
	if err != nil {
		return fmt.Errorf("PG_URL: %w", err)
	}
	pgCfg.MaxConns = 8
	pgCfg.ConnConfig.ConnectTimeout = 5 * time.Second
	if c.schema != "" {
		pgCfg.ConnConfig.RuntimeParams["search_path"] = c.schema
	}
	pool, err := pgxpool.NewWithConfig(ctx, pgCfg)
	if err != nil {
		return fmt.Errorf("postgres pool: %w", err)
	}
	defer pool.Close()
	redisOpt, err := redis.ParseURL(c.redisURL)
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(redisOpt)
	defer rdb.Close()
	st, err := newStore(c.strategy, pool, newLocker(rdb, c.lockTTL, c.lockWait, log), c.keyPrefix)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", c.port))
	if err != nil {
		return err
	}
	a := &api{store: st, pool: pool, rdb: rdb, log: log}
	srv := &http.Server{Handler: a.routes(), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("ticketd listening", "addr", ln.Addr().String(), "strategy", c.strategy)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}
