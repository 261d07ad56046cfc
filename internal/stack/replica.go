package stack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Replica is a second redis-server replicating the stack's Redis, for the
// failover fault. Only a Local stack can start one.
type Replica struct {
	// Addr is the replica's host:port.
	Addr string
	proc *proc
	dir  string
}

// StartReplica starts redis-server on a free loopback port as a replica of
// the server at of (host:port; the stack's Redis or a proxy in front of
// it), and waits until it has synchronised.
func (s *Stack) StartReplica(ctx context.Context, of string) (*Replica, error) {
	if s.Kind != Local || s.local == nil {
		return nil, fmt.Errorf("start a redis replica on a %s stack: %w", s.Kind, ErrUnsupported)
	}
	host, port, err := net.SplitHostPort(of)
	if err != nil {
		return nil, fmt.Errorf("replica of %q: %w", of, err)
	}
	dir, err := os.MkdirTemp(s.local.dir, "replica-")
	if err != nil {
		return nil, fmt.Errorf("replica dir: %w", err)
	}
	r := &Replica{dir: dir}
	_, err = onFreePort(func(p int) error {
		r.Addr = loopback(p)
		proc, err := startProc(procSpec{
			name: "redis-server (replica)",
			path: s.local.bins.redisServer,
			args: []string{"--port", strconv.Itoa(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
				"--dir", dir, "--replicaof", host, port},
			dir:      dir,
			logPath:  filepath.Join(dir, "redis.log"),
			deathSig: syscall.SIGKILL,
		})
		if err != nil {
			return err
		}
		r.proc = proc
		return await(ctx, proc, p, func(ctx context.Context) error { return r.synced(ctx) })
	})
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("start redis replica: %w", err)
	}
	return r, nil
}

// synced reports nil once the replica's link to its primary is up.
func (r *Replica) synced(ctx context.Context) error {
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr, DialTimeout: time.Second})
	defer rdb.Close()
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "master_link_status:up") {
		return errors.New("replication link not up yet")
	}
	return nil
}

// Promote turns the replica into a primary (REPLICAOF NO ONE).
func (r *Replica) Promote(ctx context.Context) error {
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr, DialTimeout: time.Second})
	defer rdb.Close()
	if err := rdb.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		return fmt.Errorf("promote replica: %w", err)
	}
	return nil
}

// Close stops the replica and removes its directory.
func (r *Replica) Close() error {
	var errs []error
	if r.proc != nil {
		errs = append(errs, r.proc.stop(redisGrace, syscall.SIGTERM))
	}
	errs = append(errs, os.RemoveAll(r.dir))
	return errors.Join(errs...)
}

// KillRedis kills the stack's Redis with SIGKILL, as a crashed primary;
// RestartRedis brings a fresh, empty one back on the same port. Only a Local
// stack can do this.
func (s *Stack) KillRedis() error {
	if s.Kind != Local || s.local == nil {
		return fmt.Errorf("kill redis of a %s stack: %w", s.Kind, ErrUnsupported)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.local.redis.kill()
}
