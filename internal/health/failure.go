// Package health tells a failing server from a failing strategy. Failure
// classifies an error as an infrastructure failure (a server that refuses,
// resets or times out a connection, runs out of connections or is shutting
// down) rather than an answer the strategy got; Watch pings Redis and
// PostgreSQL during a race and reports when one of them stops answering.
//
// hammer exits 1 only when a strategy was caught with data that proves it;
// what this package recognises makes a run unknown (exit 3) instead.
package health

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

// Failure reports whether err comes from the infrastructure rather than
// from the strategy: the connection was refused, reset, closed or timed
// out, the server has no connection (or memory) left, or it is starting,
// shutting down or failing over, or Redis refuses the client's
// credentials or rights. A constraint violation, a sold-out sector
// or a fenced write is not a failure: it is an answer.
func Failure(err error) bool {
	if err == nil {
		return false
	}
	return networkFailure(err) || postgresFailure(err) || redisFailure(err)
}

// networkFailure recognises a broken or refused connection and timeouts.
func networkFailure(err error) bool {
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr), errors.As(err, &netErr) && netErr.Timeout():
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed):
		return true
	}
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// postgresFailure recognises PostgreSQL's own reports of trouble: a
// connection that could not be made or was lost, and the SQLSTATE classes
// of connection exceptions (08), insufficient resources (53, with
// too_many_connections), operator intervention by shutdown (57P01-57P03)
// and system errors (58).
func postgresFailure(err error) bool {
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) || pgconn.Timeout(err) || errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	code := pgErr.Code
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "58"):
		return true
	case code == "57P01", code == "57P02", code == "57P03":
		return true
	}
	return false
}

// redisFailure recognises Redis's reports of trouble: out of clients or
// memory, loading its data, a read-only replica or a primary that is down,
// a client whose pool is closed or exhausted, and a refusal of the
// client's credentials or rights (see RedisRefused): a wrong ACL is the
// configuration's fault, never a strategy's.
func redisFailure(err error) bool {
	switch {
	case errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrPoolExhausted):
		return true
	case RedisRefused(err):
		return true
	case redis.IsMaxClientsError(err), redis.IsOOMError(err), redis.IsLoadingError(err), redis.IsReadOnlyError(err),
		redis.IsMasterDownError(err), redis.IsClusterDownError(err), redis.IsTryAgainError(err):
		return true
	}
	return false
}

// RedisRefused reports whether err is Redis refusing the client's
// credentials or rights: WRONGPASS (a wrong user or password), NOAUTH (no
// password given) or NOPERM (an ACL that forbids a command, key or
// channel).
func RedisRefused(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	msg := rerr.Error()
	for _, code := range [...]string{"WRONGPASS", "NOAUTH", "NOPERM"} {
		if strings.HasPrefix(msg, code+" ") || strings.Contains(msg, " "+code+" ") {
			return true
		}
	}
	return false
}
