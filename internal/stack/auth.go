package stack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

// redisRefusals are the error codes with which Redis refuses a client's
// credentials or rights: a wrong password or user, a password missing,
// an ACL that forbids a command or key hammer needs.
var redisRefusals = []string{"WRONGPASS", "NOAUTH", "NOPERM"}

// pgRefusals are the SQLSTATEs with which PostgreSQL refuses the URL's
// role or database: the user's configuration, not the server's state.
var pgRefusals = map[string]string{
	"28P01": "wrong password, or no such role",
	"28000": "the role may not log in here (no such role, or pg_hba.conf)",
	"3D000": "no such database",
	"42501": "the role lacks a privilege it needs",
}

// redisRefused says whether err is Redis refusing the client's
// credentials or rights.
func redisRefused(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	for _, code := range redisRefusals {
		if strings.HasPrefix(rerr.Error(), code+" ") || strings.Contains(rerr.Error(), " "+code+" ") {
			return true
		}
	}
	return false
}

// pgRefused says why PostgreSQL refused the URL's role or database, if
// err is such a refusal.
func pgRefused(err error) (string, bool) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return "", false
	}
	why, ok := pgRefusals[pgErr.Code]
	return fmt.Sprintf("%s: %s (SQLSTATE %s)", why, pgErr.Message, pgErr.Code), ok
}

// probeRedisRights checks that the client may run what a race sends on
// keys and channels under hammer: (EVAL, SET … NX PX, DEL, PUBLISH for
// the lock waiters' pub/sub), in one transaction that leaves nothing
// behind: the key it sets is deleted, or expires in 10 s if it cannot be.
func probeRedisRights(ctx context.Context, opts *redis.Options) error {
	var b [6]byte
	_, _ = rand.Read(b[:])
	key := "hammer:probe:" + hex.EncodeToString(b[:])
	c := redis.NewClient(opts)
	defer c.Close()
	// MULTI/EXEC: no other client ever sees the key.
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Eval(ctx, "return 1", nil)
		p.SetNX(ctx, key, "1", 10*time.Second)
		p.Del(ctx, key)
		p.Publish(ctx, key, "")
		return nil
	})
	// A refused command fails the EXEC as a whole (EXECABORT): say which.
	for _, cmd := range cmds {
		if redisRefused(cmd.Err()) {
			return cmd.Err()
		}
	}
	return err
}

// pgWho names the role and database of cfg for messages (never the
// password).
func pgWho(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("user %s, database %s", cfg.User, cfg.Database)
}

// redisWho names the server and user of opts for messages (never the
// password).
func redisWho(opts *redis.Options) string {
	if opts.Username == "" {
		return opts.Addr
	}
	return opts.Username + "@" + opts.Addr
}
