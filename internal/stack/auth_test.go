package stack

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

// redisErr is an error as go-redis returns a server's error reply.
type redisErr string

func (e redisErr) Error() string { return string(e) }
func (redisErr) RedisError()     {}

var _ redis.Error = redisErr("")

// TestRefusals: the server's refusals of the URL's credentials, database
// or rights are told from a server that is down or failing.
func TestRefusals(t *testing.T) {
	redisTests := []struct {
		err  error
		want bool
	}{
		{redisErr("WRONGPASS invalid username-password pair or user is disabled."), true},
		{redisErr("NOAUTH Authentication required."), true},
		{fmt.Errorf("ping: %w", redisErr("NOPERM this user has no permissions to run the 'eval' command")), true},
		{redisErr("LOADING Redis is loading the dataset in memory"), false},
		{errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), false},
		{errors.New("WRONGPASS in a message that is not Redis's"), false},
	}
	for _, tt := range redisTests {
		if got := redisRefused(tt.err); got != tt.want {
			t.Errorf("redisRefused(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	pgTests := []struct {
		code string
		want bool
	}{
		{"28P01", true}, {"28000", true}, {"3D000", true}, {"42501", true},
		{"57P03", false}, // the database system is starting up
		{"53300", false}, // too many connections
		{"08006", false}, // connection failure
	}
	for _, tt := range pgTests {
		err := fmt.Errorf("connect: %w", &pgconn.PgError{Code: tt.code, Message: "m"})
		if _, got := pgRefused(err); got != tt.want {
			t.Errorf("pgRefused(SQLSTATE %s) = %v, want %v", tt.code, got, tt.want)
		}
	}
}
