package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/internal/sockets"
	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

const (
	// readyTimeout bounds the wait for a started server to answer.
	readyTimeout = 15 * time.Second
	// initdbTimeout bounds initdb.
	initdbTimeout = time.Minute
	// redisGrace and pgGrace are how long Close waits after each signal
	// before it sends a harsher one.
	redisGrace = 5 * time.Second
	pgGrace    = 5 * time.Second
	// portAttempts is how often a server is tried on a new free port when
	// another process took the one picked.
	portAttempts = 3
	// localNote is the Stack note of a Local stack.
	localNote = "local PostgreSQL runs with fsync off"
	// pgUser and pgDatabase are the role and database of a Local stack.
	pgUser     = "hammer"
	pgDatabase = "hammer"
)

// errPortInUse reports that a server could not bind the port picked for it.
var errPortInUse = errors.New("port in use")

// localServers are the processes of a Local stack and the temporary
// directory holding their data and logs.
type localServers struct {
	bins      localBins
	owner     *osUser // PostgreSQL runs as this account; nil = as hammer
	log       io.Writer
	dir       string
	redisPort int
	pgPort    int
	redis     *proc
	pg        *proc
	// peers are the further Redis nodes of a Redlock (nodes 1 to N-1).
	peers []*redisNode
}

// startLocal starts redis-server and postgres from the local binaries,
// first removing the directories of Local stacks whose hammer was killed.
func startLocal(ctx context.Context, o Options) (*Stack, error) {
	bins, err := findLocalBins()
	if err != nil {
		return nil, err
	}
	sweepStale(os.TempDir(), o.Log)
	return startLocalBins(ctx, o, bins)
}

// startLocalBins starts the servers from bins. On failure it stops what it
// started and removes the temporary directory.
func startLocalBins(ctx context.Context, o Options, bins localBins) (*Stack, error) {
	owner, err := serverUser()
	if err != nil {
		return nil, unavailablef("local stack: %w", err)
	}
	l := &localServers{bins: bins, owner: owner, log: o.Log}
	if err := l.start(ctx, max(o.RedisNodes, 1)); err != nil {
		if cerr := l.close(); cerr != nil {
			fmt.Fprintf(o.Log, "cleaning up the failed local stack: %v\n", cerr)
		}
		return nil, unavailablef("local stack: %w", err)
	}
	st := &Stack{
		Kind:     Local,
		RedisURL: redisURL(l.redisPort),
		PGURL:    fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", pgUser, l.pgPort, pgDatabase),
		Notes:    []string{localNote},
		stop:     l.close,
		local:    l,
	}
	st.RedisPeers = l.peerURLs()
	return st, nil
}

// start runs the steps of startLocalBins, with nodes Redis servers; l.close
// undoes any prefix of them.
func (l *localServers) start(ctx context.Context, nodes int) error {
	err := l.makeDir()
	if err != nil {
		return err
	}
	if l.redisPort, err = onFreePort(func(port int) error { return l.runRedis(ctx, port) }); err != nil {
		return err
	}
	if err := l.startPeers(ctx, nodes-1); err != nil {
		return err
	}
	if err := l.initdb(ctx); err != nil {
		return err
	}
	if l.pgPort, err = onFreePort(func(port int) error { return l.runPostgres(ctx, port) }); err != nil {
		return err
	}
	return l.createDatabase(ctx)
}

// makeDir creates the temporary directory, owned by the PostgreSQL account,
// with a marker naming this process so that a later sweepStale can remove
// it if hammer is killed. Without the marker the stack still works.
func (l *localServers) makeDir() error {
	dir, err := os.MkdirTemp("", stackDirPrefix)
	if err != nil {
		return fmt.Errorf("make temp dir: %w", err)
	}
	l.dir = dir
	if err := writeOwner(dir); err != nil {
		fmt.Fprintf(l.log, "%v; %s will stay behind if hammer is killed\n", err, dir)
	}
	if l.owner == nil {
		return nil
	}
	if err := os.Chown(dir, int(l.owner.uid), int(l.owner.gid)); err != nil {
		return fmt.Errorf("hand %s to user %s: %w", dir, l.owner.name, err)
	}
	return nil
}

// runRedis starts redis-server (node 0) without persistence on port and
// waits for it to answer PING.
func (l *localServers) runRedis(ctx context.Context, port int) error {
	p, err := l.startRedis(ctx, port, "redis.log")
	l.redis = p
	return err
}

// startRedis starts a redis-server without persistence on port, logging
// to logName in the stack's directory, and waits for it to answer PING.
// The process is returned even when it did not answer, to be stopped.
func (l *localServers) startRedis(ctx context.Context, port int, logName string) (*proc, error) {
	fmt.Fprintf(l.log, "starting local redis-server on 127.0.0.1:%d\n", port)
	p, err := startProc(procSpec{
		name: "redis-server",
		path: l.bins.redisServer,
		// A replica (failover fault) syncs at once instead of after the
		// default 5 s wait for more replicas.
		args: []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", l.dir, "--repl-diskless-sync-delay", "0"},
		dir:      l.dir,
		logPath:  filepath.Join(l.dir, logName),
		deathSig: syscall.SIGKILL,
	})
	if err != nil {
		return nil, err
	}
	opts := &redis.Options{Addr: loopback(port), DialTimeout: time.Second, MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true}
	return p, await(ctx, p, port, func(ctx context.Context) error { return pingRedis(ctx, opts) })
}

// initdb creates the PostgreSQL cluster with superuser hammer and trust
// authentication.
func (l *localServers) initdb(ctx context.Context) error {
	fmt.Fprintf(l.log, "creating a PostgreSQL cluster in %s\n", l.pgData())
	return runProc(ctx, procSpec{
		name: "initdb",
		path: l.bins.initdb,
		args: []string{"-D", l.pgData(), "-A", "trust", "-U", pgUser,
			"-E", "UTF8", "--locale=C", "--no-sync"},
		dir:      l.dir,
		logPath:  filepath.Join(l.dir, "initdb.log"),
		owner:    l.owner,
		deathSig: syscall.SIGKILL,
	}, initdbTimeout)
}

// runPostgres starts postgres on port, TCP on loopback only and without
// durability, and waits for it to answer SELECT 1.
func (l *localServers) runPostgres(ctx context.Context, port int) error {
	fmt.Fprintf(l.log, "starting local postgres on 127.0.0.1:%d\n", port)
	p, err := startProc(procSpec{
		name: "postgres",
		path: l.bins.postgres,
		args: []string{"-D", l.pgData(), "-p", strconv.Itoa(port),
			"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
			"-c", "max_connections=400", "-c", "fsync=off",
			"-c", "synchronous_commit=off", "-c", "full_page_writes=off"},
		dir:      l.dir,
		logPath:  filepath.Join(l.dir, "postgres.log"),
		owner:    l.owner,
		deathSig: syscall.SIGQUIT, // immediate shutdown, backends included
	})
	if err != nil {
		return err
	}
	l.pg = p
	cfg, err := l.pgConfig(port, "postgres")
	if err != nil {
		return err
	}
	return await(ctx, p, port, func(ctx context.Context) error { return pingPG(ctx, cfg) })
}

// createDatabase creates the database the Stack's PGURL names.
func (l *localServers) createDatabase(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	cfg, err := l.pgConfig(l.pgPort, "postgres")
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgDatabase); err != nil {
		return fmt.Errorf("create database %s: %w", pgDatabase, err)
	}
	return nil
}

// pgConfig is the connection config for database db of the local server.
func (l *localServers) pgConfig(port int, db string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable&connect_timeout=1", pgUser, loopback(port), db))
	if err != nil {
		return nil, fmt.Errorf("postgres config: %w", err)
	}
	return cfg, nil
}

// restartRedis kills redis-server and starts a new one on the same port.
func (l *localServers) restartRedis(ctx context.Context) error {
	fmt.Fprintf(l.log, "killing local redis-server on 127.0.0.1:%d; a new one loses all keys\n", l.redisPort)
	if err := l.redis.kill(); err != nil {
		return err
	}
	return l.runRedis(ctx, l.redisPort)
}

// close stops the servers (PostgreSQL by fast shutdown, Redis by SIGTERM,
// harsher signals if they linger) and removes the temporary directory.
func (l *localServers) close() error {
	var errs []error
	if l.pg != nil {
		fmt.Fprintln(l.log, "stopping local postgres")
		// Fast shutdown, else immediate shutdown: postgres children lead
		// their own process groups, so only the postmaster can stop them.
		errs = append(errs, l.pg.stop(pgGrace, syscall.SIGINT, syscall.SIGQUIT))
	}
	if l.redis != nil {
		fmt.Fprintln(l.log, "stopping local redis-server")
		errs = append(errs, l.redis.stop(redisGrace, syscall.SIGTERM))
	}
	errs = append(errs, l.stopPeers())
	if l.dir != "" {
		if err := os.RemoveAll(l.dir); err != nil {
			errs = append(errs, fmt.Errorf("remove temp dir: %w", err))
		}
	}
	return errors.Join(errs...)
}

// pgData is the PostgreSQL data directory.
func (l *localServers) pgData() string { return filepath.Join(l.dir, "pgdata") }

// await waits for p to answer probe on port. If p exits first the error
// quotes its log and wraps errPortInUse when it could not bind its port.
// An answer counts only if p's process group listens on port: another
// process (another run's server) may have bound it between freePort and
// p's own bind, and answered the probe; that too is errPortInUse, so that
// the server is started again on another port.
func await(ctx context.Context, p *proc, port int, probe func(context.Context) error) error {
	err := pollReady(ctx, readyTimeout, p.done, probe)
	switch {
	case err == nil:
		if ok, checked := sockets.ListensOn(p.pid(), port); checked && !ok {
			_ = p.kill() // it cannot have the port: it is not ours to keep
			return fmt.Errorf("%w: %s: another process answered on port %d", errPortInUse, p.spec.name, port)
		}
		return nil
	case errors.Is(err, errExited):
		exitErr := p.exitErr()
		if strings.Contains(logTail(p.spec.logPath, logTailLines), "Address already in use") {
			return fmt.Errorf("%w: %w", errPortInUse, exitErr)
		}
		return exitErr
	}
	return fmt.Errorf("%s %w%s", p.spec.name, err, p.tail())
}

// onFreePort runs run on a free loopback port, retrying on a new port when
// the one picked was taken meanwhile. It returns the port used.
func onFreePort(run func(port int) error) (int, error) {
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return 0, err
		}
		err = run(port)
		if err == nil || attempt == portAttempts || !errors.Is(err, errPortInUse) {
			return port, err
		}
	}
}

// freePort asks the kernel for a free loopback TCP port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// loopback is 127.0.0.1:port.
func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
