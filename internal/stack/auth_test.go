package stack

import (
	"errors"
	"fmt"
	"strings"
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

// TestMisdirected: a Redis URL that points at a server hammer cannot race
// on is told from a server that is down or failing. Before, all of these
// read "did not answer PING", exit 3.
func TestMisdirected(t *testing.T) {
	tests := []struct {
		err  error
		want string // "" when not misdirected
	}{
		{fmt.Errorf("probe: %w", redisErr("READONLY You can't write against a read only replica.")), "read-only replica"},
		{redisErr("MOVED 3999 127.0.0.1:6381"), "Redis Cluster"},
		{redisErr("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"), "has none set"},
		{redisErr("ERR DB index is out of range"), "database number"},
		{redisErr("EXECABORT Transaction discarded because of previous errors."), ""},
		{redisErr("LOADING Redis is loading the dataset in memory"), ""},
		{errors.New("READONLY in a message that is not Redis's"), ""},
	}
	for _, tt := range tests {
		why, ok := redisMisdirected(tt.err)
		if ok != (tt.want != "") || !strings.Contains(why, tt.want) {
			t.Errorf("redisMisdirected(%v) = %q, %v; want %q", tt.err, why, ok, tt.want)
		}
	}
}
