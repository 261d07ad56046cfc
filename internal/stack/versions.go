package stack

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// Versions are the facts about the servers a report shows.
type Versions struct {
	Redis      string
	PostgreSQL string
	// Fsync is PostgreSQL's fsync setting ("on" or "off").
	Fsync string
}

// Describe asks the servers of s for their versions and PostgreSQL's fsync
// setting. What cannot be asked is left empty and reported in the error.
func (s *Stack) Describe(ctx context.Context) (Versions, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var v Versions
	var errs []string
	if opt, err := redis.ParseURL(s.RedisURL); err == nil {
		rdb := redis.NewClient(opt)
		info, err := rdb.Info(ctx, "server").Result()
		rdb.Close()
		if err != nil {
			errs = append(errs, "redis: "+err.Error())
		}
		for _, line := range strings.Split(info, "\n") {
			if after, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
				v.Redis = after
			}
		}
	}
	conn, err := pgx.Connect(ctx, s.PGURL)
	if err != nil {
		errs = append(errs, "postgresql: "+err.Error())
	} else {
		defer conn.Close(context.WithoutCancel(ctx))
		if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v.PostgreSQL); err != nil {
			errs = append(errs, "postgresql version: "+err.Error())
		}
		if err := conn.QueryRow(ctx, "SHOW fsync").Scan(&v.Fsync); err != nil {
			errs = append(errs, "postgresql fsync: "+err.Error())
		}
	}
	if len(errs) > 0 {
		return v, fmt.Errorf("describe servers: %s", strings.Join(errs, "; "))
	}
	return v, nil
}
