// Command seatd is a seat service written the way many are, for hammer's
// tests of target mode: its Redis lock has a fixed key name
// (seatd:lock:sector:N) and it has no schema setting, so its tables are
// found by the search_path its PostgreSQL client gets from PGOPTIONS.
// STRATEGY lock-only reads the count and writes it back inside the lock
// (unsafe once the lock is lost); lock-plus-update takes the seat with one
// conditional UPDATE inside the lock (safe).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// errSoldOut: no seat left.
var errSoldOut = errors.New("sold out")

// errLockTimeout: the lock stayed taken for lockWait.
var errLockTimeout = errors.New("lock timeout")

// lockWait is how long a request waits for the lock: below hammer's
// request timeout, so a request stuck behind it gets an answer.
const lockWait = 8 * time.Second

// release deletes the lock only while it holds the caller's token.
var release = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`)

// service sells the seats of a sector by one strategy.
type service struct {
	pool   *pgxpool.Pool
	rdb    *redis.Client
	ttl    time.Duration
	atomic bool // lock-plus-update; false is lock-only
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		log.Fatal(err)
	}
}

// run serves until ctx ends.
func run(ctx context.Context) error {
	ttlMS, err := strconv.Atoi(os.Getenv("LOCK_TTL_MS"))
	if err != nil {
		return fmt.Errorf("LOCK_TTL_MS: %w", err)
	}
	s := &service{ttl: time.Duration(ttlMS) * time.Millisecond}
	switch os.Getenv("STRATEGY") {
	case "lock-only":
	case "lock-plus-update":
		s.atomic = true
	default:
		return fmt.Errorf("STRATEGY %q: want lock-only or lock-plus-update", os.Getenv("STRATEGY"))
	}
	// No search_path here: pgx takes it from PGOPTIONS. SEATD_SCHEMA, set
	// only by the test of a service that ignores the race's schema, makes
	// seatd keep its tables in a schema of its own, made at start.
	cfg, err := pgxpool.ParseConfig(os.Getenv("PG_URL"))
	if err != nil {
		return err
	}
	own := os.Getenv("SEATD_SCHEMA")
	if own != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = own
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return err
	}
	defer s.pool.Close()
	if own != "" {
		if err := migrate(ctx, s.pool, own); err != nil {
			return err
		}
	}
	opt, err := redis.ParseURL(os.Getenv("REDIS_URL"))
	if err != nil {
		return err
	}
	s.rdb = redis.NewClient(opt)
	defer s.rdb.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", os.Getenv("PORT")))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := errors.Join(s.pool.Ping(r.Context()), s.rdb.Ping(r.Context()).Err()); err != nil {
			reply(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
			return
		}
		reply(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("POST /sectors/{id}/reservations", s.reserve)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// reserve sells one seat: 201 {"seat": N}, 409 sold_out, 503
// lock_timeout, 500 otherwise.
func (s *service) reserve(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RequestID string `json:"request_id"`
	}
	sector, err := strconv.Atoi(r.PathValue("id"))
	if err == nil {
		err = json.NewDecoder(r.Body).Decode(&body)
	}
	if err != nil {
		reply(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	var seat int
	err = s.locked(r.Context(), "seatd:lock:sector:"+strconv.Itoa(sector), func() error {
		seat, err = s.sell(r.Context(), sector, body.RequestID)
		return err
	})
	switch {
	case err == nil:
		reply(w, http.StatusCreated, map[string]int{"seat": seat})
	case errors.Is(err, errSoldOut):
		reply(w, http.StatusConflict, map[string]string{"error": "sold_out"})
	case errors.Is(err, errLockTimeout):
		reply(w, http.StatusServiceUnavailable, map[string]string{"error": "lock_timeout"})
	default:
		reply(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	}
}

// locked runs fn holding the lock at key: SET NX PX, retried after 1–16
// ms (at random) for up to lockWait, released by the owner-checked script.
func (s *service) locked(ctx context.Context, key string, fn func() error) error {
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	for deadline := time.Now().Add(lockWait); ; {
		err := s.rdb.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: s.ttl}).Err()
		if err == nil {
			break
		}
		if !errors.Is(err, redis.Nil) {
			return err
		}
		if time.Now().After(deadline) {
			return errLockTimeout
		}
		time.Sleep(time.Duration(1+mrand.N(16)) * time.Millisecond)
	}
	defer release.Run(context.WithoutCancel(ctx), s.rdb, []string{key}, token) //nolint:errcheck // the TTL frees it
	return fn()
}

// sell takes a seat in one transaction: lock-only reads the count, then
// writes it back less one (two holders that read the same count sell the
// same seat); lock-plus-update lets one conditional UPDATE decide.
func (s *service) sell(ctx context.Context, sector int, requestID string) (seat int, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if s.atomic {
			err := tx.QueryRow(ctx, "UPDATE sectors SET available = available - 1 WHERE id = $1 AND available > 0 RETURNING capacity - available", sector).Scan(&seat)
			if errors.Is(err, pgx.ErrNoRows) {
				return errSoldOut
			}
			if err != nil {
				return err
			}
		} else {
			var capacity, available int
			if err := tx.QueryRow(ctx, "SELECT capacity, available FROM sectors WHERE id = $1", sector).Scan(&capacity, &available); err != nil {
				return err
			}
			if available <= 0 {
				return errSoldOut
			}
			if _, err := tx.Exec(ctx, "UPDATE sectors SET available = $2 WHERE id = $1", sector, available-1); err != nil {
				return err
			}
			seat = capacity - available + 1
		}
		_, err := tx.Exec(ctx, "INSERT INTO sales (seat, sector_id, request_id) VALUES ($1, $2, $3)", seat, sector, requestID)
		return err
	})
	return seat, err
}

// reply writes v as a JSON answer with status.
func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// migrate makes schema and the service's tables in it, with 100 seats in
// sector 1, unless they are there.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	// One statement list is one transaction: the lock keeps the replicas,
	// which start together, from making the schema at once.
	_, err := pool.Exec(ctx, "SELECT pg_advisory_xact_lock(7411); CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()+`;
		CREATE TABLE IF NOT EXISTS sectors (id int PRIMARY KEY, capacity int NOT NULL, available int NOT NULL CHECK (available >= 0));
		CREATE TABLE IF NOT EXISTS sales (seat int NOT NULL, sector_id int NOT NULL, request_id text NOT NULL UNIQUE);
		INSERT INTO sectors VALUES (1, 100, 100) ON CONFLICT DO NOTHING`)
	return err
}
