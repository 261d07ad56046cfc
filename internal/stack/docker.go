package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	tcredis "github.com/testcontainers/testcontainers-go/modules/redis"
)

const (
	// dockerPingTimeout bounds the check that a Docker engine answers.
	dockerPingTimeout = 3 * time.Second
	// dockerNote is the Stack note of a Docker stack: the postgres module
	// starts the server with "-c fsync=off".
	dockerNote = "PostgreSQL (container) runs with fsync off"
	// Container images.
	redisImage    = "redis:7"
	postgresImage = "postgres:16"
)

// findDockerEngine returns nil when a Docker engine answers a ping: the one
// DOCKER_HOST names when it is set, else one on a usual socket. The error
// wraps ErrUnavailable. It never calls into testcontainers, which panics
// when there is no engine.
func findDockerEngine(ctx context.Context) error {
	if host := os.Getenv("DOCKER_HOST"); host != "" {
		if err := pingDocker(ctx, host); err != nil {
			return unavailablef("no Docker engine answers at DOCKER_HOST=%s: %v", host, err)
		}
		return nil
	}
	var failures []string
	for _, sock := range dockerSockets() {
		if _, err := os.Stat(sock); err != nil {
			continue
		}
		if err := pingDocker(ctx, "unix://"+sock); err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", sock, err))
			continue
		}
		return nil
	}
	if len(failures) == 0 {
		return unavailablef("no Docker engine: DOCKER_HOST is unset and no Docker socket exists")
	}
	return unavailablef("no Docker engine answers: %s", strings.Join(failures, "; "))
}

// dockerSockets are the sockets testcontainers looks for an engine on:
// the system one, then the rootless and Docker Desktop ones.
func dockerSockets() []string {
	socks := []string{"/var/run/docker.sock"}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		socks = append(socks, filepath.Join(dir, "docker.sock"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		socks = append(socks,
			filepath.Join(home, ".docker", "run", "docker.sock"),
			filepath.Join(home, ".docker", "desktop", "docker.sock"))
	}
	return append(socks, fmt.Sprintf("/run/user/%d/docker.sock", os.Getuid()))
}

// pingDocker pings the engine at host, e.g. unix:///var/run/docker.sock.
func pingDocker(ctx context.Context, host string) error {
	cli, err := client.New(client.FromEnv, client.WithHost(host))
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, dockerPingTimeout)
	defer cancel()
	_, err = cli.Ping(ctx, client.PingOptions{})
	return err
}

// dockerServers are the containers of a Docker stack.
type dockerServers struct {
	redis    *tcredis.RedisContainer
	pg       *tcpostgres.PostgresContainer
	redisURL string
	pgURL    string
}

// startDocker starts a redis:7 and a postgres:16 container. On failure,
// including a panic inside testcontainers, it removes what it started.
func startDocker(ctx context.Context, o Options) (st *Stack, err error) {
	if err := findDockerEngine(ctx); err != nil {
		return nil, err
	}
	d := &dockerServers{}
	defer func() {
		if r := recover(); r != nil {
			err = unavailablef("docker stack: testcontainers panicked: %v", r)
		}
		if err != nil {
			if cerr := d.close(); cerr != nil {
				fmt.Fprintf(o.Log, "cleaning up the failed docker stack: %v\n", cerr)
			}
		}
	}()
	if err := d.start(ctx, o.Log); err != nil {
		return nil, unavailablef("docker stack: %w", err)
	}
	return &Stack{Kind: Docker, RedisURL: d.redisURL, PGURL: d.pgURL, Notes: []string{dockerNote}, stop: d.close}, nil
}

// start runs both containers and checks that both servers answer.
func (d *dockerServers) start(ctx context.Context, w io.Writer) error {
	logger := testcontainers.WithLogger(log.New(w, "testcontainers: ", 0))
	fmt.Fprintf(w, "starting %s container\n", redisImage)
	var err error
	d.redis, err = tcredis.Run(ctx, redisImage, logger,
		testcontainers.WithCmd("redis-server", "--save", "", "--appendonly", "no"))
	if err != nil {
		return fmt.Errorf("start %s: %w", redisImage, err)
	}
	if d.redisURL, err = d.redis.ConnectionString(ctx); err != nil {
		return fmt.Errorf("redis container address: %w", err)
	}
	fmt.Fprintf(w, "starting %s container\n", postgresImage)
	d.pg, err = tcpostgres.Run(ctx, postgresImage, logger,
		tcpostgres.WithDatabase(pgDatabase), tcpostgres.WithUsername(pgUser), tcpostgres.WithPassword(pgUser),
		testcontainers.WithCmdArgs("-c", "max_connections=400"), tcpostgres.BasicWaitStrategies())
	if err != nil {
		return fmt.Errorf("start %s: %w", postgresImage, err)
	}
	if d.pgURL, err = d.pg.ConnectionString(ctx, "sslmode=disable"); err != nil {
		return fmt.Errorf("postgres container address: %w", err)
	}
	return d.check(ctx)
}

// check pings both servers through the URLs the Stack will report.
func (d *dockerServers) check(ctx context.Context) error {
	// A container URL that does not parse is no configuration error of
	// the user's, so the parse errors are not wrapped (%v, not %w).
	ropts, err := redisOptions(d.redisURL)
	if err != nil {
		return fmt.Errorf("redis container: %v", err)
	}
	pcfg, err := pgConfig(d.pgURL)
	if err != nil {
		return fmt.Errorf("postgres container: %v", err)
	}
	return checkServers(ctx, ropts, pcfg)
}

// close terminates the containers that were started.
func (d *dockerServers) close() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("terminate containers: testcontainers panicked: %v", r)
		}
	}()
	var errs []error
	if d.pg != nil {
		errs = append(errs, testcontainers.TerminateContainer(d.pg))
	}
	if d.redis != nil {
		errs = append(errs, testcontainers.TerminateContainer(d.redis))
	}
	return errors.Join(errs...)
}
