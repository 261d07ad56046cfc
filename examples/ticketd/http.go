package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// api is the HTTP side of the service.
type api struct {
	store *store
	pool  *pgxpool.Pool
	rdb   *redis.Client
	log   *slog.Logger
}

// routes returns the service's handler.
func (a *api) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", a.healthz)
	mux.HandleFunc("POST /sectors/{id}/reservations", a.reserve)
	return mux
}

// healthz answers 200 while both PostgreSQL and Redis answer.
func (a *api) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := errors.Join(a.pool.Ping(ctx), a.rdb.Ping(ctx).Err()); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// reserve sells one seat: 201 {"seat": N}, 409 sold_out or duplicate,
// 503 lock_timeout, 400 for a malformed request, 500 for anything else.
func (a *api) reserve(w http.ResponseWriter, r *http.Request) {
	sector, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad_request: sector id is not a number"})
		return
	}
	var body struct {
		RequestID string `json:"request_id"`
		Contender string `json:"contender"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil || body.RequestID == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad_request: want JSON with a request_id"})
		return
	}
	seat, err := a.store.reserve(r.Context(), sector, body.RequestID)
	switch {
	case err == nil:
		writeJSON(w, http.StatusCreated, map[string]int{"seat": seat})
	case errors.Is(err, errSoldOut):
		writeJSON(w, http.StatusConflict, map[string]string{"error": "sold_out"})
	case errors.Is(err, errDuplicate):
		writeJSON(w, http.StatusConflict, map[string]string{"error": "duplicate"})
	case errors.Is(err, errLockTimeout):
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "lock_timeout"})
	default:
		a.log.Error("reservation failed", "request_id", body.RequestID, "contender", body.Contender, "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	}
}

// writeJSON writes v as the JSON body of a response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
