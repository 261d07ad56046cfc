package stack

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/health"
)

// redisRefused says whether err is Redis refusing the client's
// credentials or rights.
func redisRefused(err error) bool { return health.RedisRefused(err) }

// pgRefusal says why PostgreSQL refuses the URL's role or database with
// an error of SQLSTATE code, if it is such a refusal: the user's
// configuration, not the server's state.
func pgRefusal(code string) (string, bool) {
	switch code {
	case "28P01":
		return "wrong password, or no such role", true
	case "28000":
		return "the role may not log in here (no such role, or pg_hba.conf)", true
	case "3D000":
		return "no such database", true
	case "42501":
		return "the role lacks a privilege it needs", true
	}
	return "", false
}

// pgRefused says why PostgreSQL refused the URL's role or database, if
// err is such a refusal.
func pgRefused(err error) (string, bool) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return "", false
	}
	why, ok := pgRefusal(pgErr.Code)
	return fmt.Sprintf("%s: %s (SQLSTATE %s)", why, pgErr.Message, pgErr.Code), ok
}

// redisMisdirected says what is wrong with a Redis URL that points at a
// server hammer cannot race on, if err is such a server's reply: a
// read-only replica, a Redis Cluster node, or a server with no password
// set for a URL that gives one.
func redisMisdirected(err error) (string, bool) {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return "", false
	}
	msg := rerr.Error()
	switch {
	case strings.HasPrefix(msg, "READONLY "):
		return "it is a read-only replica; give the URL of its primary", true
	case strings.HasPrefix(msg, "MOVED "), strings.HasPrefix(msg, "ASK "), strings.HasPrefix(msg, "CLUSTERDOWN "),
		strings.HasPrefix(msg, "CROSSSLOT "):
		return "it is a Redis Cluster node, and hammer needs a standalone Redis (or --redis-nodes)", true
	case strings.Contains(msg, "called without any password configured"):
		return "the URL gives a password, but the server has none set; remove it from the URL", true
	case strings.HasPrefix(msg, "ERR DB index is out of range"):
		return "the URL's database number is not one the server has (its `databases` setting; 0 to 15 by default)", true
	}
	return "", false
}

// probeAnswer says whether err, of a command of the probe, is an answer
// rather than a refusal: none, a missing key, or a script not cached.
func probeAnswer(err error) bool {
	return err == nil || errors.Is(err, redis.Nil) || strings.HasPrefix(err.Error(), "NOSCRIPT ")
}

// probeScript is the script the probe runs with EVAL and EVALSHA.
const probeScript = "return 1"

// probeRedisRights checks that the client may run every command a race
// sends on keys and channels under hammer: what the lock, the stock
// counter, the sold-out hint, the fault injectors and the clean-up send,
// and what their scripts call (EVAL, EVALSHA, SET, GET, INCR, DECR,
// PEXPIRE, EXISTS, DEL, PUBLISH, SCAN, INFO), in one transaction that
// leaves nothing behind: the key it sets is deleted, or expires in 10 s
// if it cannot be; then SUBSCRIBE, which a transaction cannot hold, on a
// connection of its own. ACL DRYRUN would need rights of its own
// (@admin) that a restricted user seldom has, so the probe runs the
// commands themselves.
func probeRedisRights(ctx context.Context, opts *redis.Options) error {
	var b [6]byte
	_, _ = rand.Read(b[:])
	key := "hammer:probe:" + hex.EncodeToString(b[:])
	channel := key + ":released" // as hammerlock.ReleasedChannel
	c := redis.NewClient(opts)
	defer c.Close()
	sum := sha1.Sum([]byte(probeScript))
	// MULTI/EXEC: no other client ever sees the key.
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Eval(ctx, probeScript, nil)
		p.EvalSha(ctx, hex.EncodeToString(sum[:]), nil)
		p.SetNX(ctx, key, "1", 10*time.Second)
		p.Get(ctx, key)
		p.Incr(ctx, key)
		p.Decr(ctx, key)
		p.PExpire(ctx, key, 10*time.Second)
		p.Set(ctx, key, "1", 10*time.Second)
		p.Exists(ctx, key)
		p.Del(ctx, key)
		p.Publish(ctx, channel, "")
		p.Scan(ctx, 0, key+"*", 1)
		p.Info(ctx, "clients")
		return nil
	})
	// A command the server refuses when queued (an ACL, a replica, a
	// cluster) fails the EXEC as a whole (EXECABORT): say which and why.
	// The commands queued before and after it carry EXECABORT.
	for _, cmd := range cmds {
		if !probeAnswer(cmd.Err()) && !strings.HasPrefix(cmd.Err().Error(), "EXECABORT ") {
			return cmd.Err()
		}
	}
	if !probeAnswer(err) {
		return err
	}
	ps := c.Subscribe(ctx, channel)
	defer ps.Close()
	_, err = ps.Receive(ctx)
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
