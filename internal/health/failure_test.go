package health_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/health"
	"github.com/hammer-load/hammer/internal/seatdb"
)

func TestFailure(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"connection refused", fmt.Errorf("acquire lock: %w", refused), true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"server closed the connection", fmt.Errorf("read reply: %w", io.EOF), true},
		{"deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), true},
		{"postgres shutting down", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{"postgres starting up", &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{"postgres too many connections", &pgconn.PgError{Code: "53300", Message: "sorry, too many clients already"}, true},
		{"postgres connection exception", &pgconn.PgError{Code: "08006"}, true},
		{"postgres check constraint", &pgconn.PgError{Code: "23514", Message: `new row violates check constraint "sectors_available_check"`}, false},
		{"postgres unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"redis max clients", redisReply("ERR max number of clients reached"), true},
		{"redis loading", redisReply("LOADING Redis is loading the dataset in memory"), true},
		{"redis read-only replica", redisReply("READONLY You can't write against a read only replica."), true},
		{"redis pool timeout", redis.ErrPoolTimeout, true},
		{"redis ACL forbids a command", fmt.Errorf("acquire: %w", redisReply("NOPERM User racer has no permissions to run the 'evalsha' command")), true},
		{"redis ACL forbids a channel", redisReply("NOPERM this user has no permissions to access one of the channels used as arguments"), true},
		{"redis no password", redisReply("NOAUTH Authentication required."), true},
		{"redis wrong password", redisReply("WRONGPASS invalid username-password pair or user is disabled."), true},
		{"redis wrong type", redisReply("WRONGTYPE Operation against a key holding the wrong kind of value"), false},
		{"sold out", seatdb.ErrSoldOut, false},
		{"fenced", fmt.Errorf("write: %w", seatdb.ErrFenced), false},
		{"anything else", errors.New("boom"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := health.Failure(tt.err); got != tt.want {
				t.Errorf("Failure(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// redisReply is an error reply as go-redis returns it.
func redisReply(msg string) error {
	return redisError(msg)
}

type redisError string

func (e redisError) Error() string { return string(e) }
func (e redisError) RedisError()   {}
