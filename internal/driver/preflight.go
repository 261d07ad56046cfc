package driver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/scenarios"
)

// ErrLimit reports a race that cannot fit: in the host's memory or file
// descriptors, in the servers' connection limits, or in what the
// PostgreSQL role may do. It is a configuration error (exit 2): nothing
// was started.
var ErrLimit = errors.New("race does not fit")

// limitError is an error matching ErrLimit that reads as its message alone.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrLimit }

// limitf returns a one-line error matching ErrLimit.
func limitf(format string, args ...any) error {
	return &limitError{msg: fmt.Sprintf(format, args...)}
}

// bytesPerAttempt is what the coordinator keeps per attempt until the
// results are written: the record, its share of the indexes verify and the
// report build, and the expected-request list. Measured at about 1.8 KiB
// (2 × 100 goroutines × 1000 attempts peaked at 394 MB resident, 100
// attempts each at 65 MB); rounded up for safety.
const bytesPerAttempt = 2560

// bytesPerContender is what a worker keeps per contending goroutine: its
// stack and what its attempt holds (the goroutines share the worker's
// connections). Measured at about 22 KiB (8 × 2500 lock-plus-update
// contenders: 79 MiB resident per worker) and 16 KiB (8 × 12500: 220 MiB)
// when every goroutine had a 16 KiB stack, as those of the modes without
// hammer's lock still have (8 × 2500 update-only: 78 MiB per worker);
// rounded up for safety.
//
// bytesPerWaiter is the same for a contender that waits in line for
// hammer's own lock on a 4 KiB stack: 8 KiB measured (8 × 12500
// lock-plus-update: 100 MiB per worker, the binary's pages included),
// rounded up.
//
// bytesPerLined is the same for a contender that waits in that line
// without a goroutine, as a worker's flash start lines them up (a
// closed-model race of one attempt each without a fault): its record, its
// place and what its turn calls, about 1.5 KiB (8 × 12500
// lock-plus-update: 45–47 MiB per worker, of which some 28 MiB are the
// binary's pages and the runtime's before anything starts), rounded up.
const (
	bytesPerContender = 32 << 10
	bytesPerWaiter    = 12 << 10
	bytesPerLined     = 4 << 10
)

// contenderBytes is what a worker keeps per contender of o's race.
func contenderBytes(o Options) int64 {
	switch {
	case o.Contender != "" || !o.Scenario.Lock.Handoff(o.Scenario.Mode):
		return bytesPerContender
	case o.Scenario.Fault == scenarios.NoFault && o.Rate == 0 && o.Attempts <= 1:
		return bytesPerLined
	}
	return bytesPerWaiter
}

// baseBytes is the coordinator's own footprint before the first attempt.
const baseBytes = 128 << 20

// fdsPerWorker is what a worker process opens besides its connections.
const fdsPerWorker = 64

// redisConns is how many Redis connections a race may hold open at once:
// every worker's pool (which its contenders, the fault counter and the
// heartbeats share), and hammer's own (health check, strikes, clean-up,
// a replica's link).
func redisConns(o Options) int {
	return o.Procs*o.withDefaults().RedisPool + 4
}

// pgConns is how many PostgreSQL connections a race may hold open at once:
// every worker's pool, plus hammer's own (health check, read-back,
// clean-up).
func pgConns(o Options) int { return o.Procs*o.PoolSize + 3 }

// CheckHost refuses, before anything is started, races this host cannot
// hold: more attempts than the memory available can record, or more
// connections per worker than a process may open.
func CheckHost(opts []Options) error {
	var attempts, contenders, workerBytes int64
	var fds int
	for _, o := range opts {
		attempts = max(attempts, int64(o.Contenders())*int64(o.Scenario.Fault.Copies()))
		n := int64(o.Procs) * int64(o.Goroutines) * int64(o.Scenario.Fault.Copies())
		contenders, workerBytes = max(contenders, n), max(workerBytes, n*contenderBytes(o))
		fds = max(fds, o.withDefaults().RedisPool*nodes(o)+o.PoolSize+fdsPerWorker)
	}
	need := uint64(baseBytes) + uint64(attempts)*bytesPerAttempt + uint64(workerBytes)
	if avail, ok := availableMemory(); ok && need > avail/10*8 {
		return limitf("%d attempts by %d contenders would need about %s of memory to race, record and verify, "+
			"but %s is available; race fewer attempts or contenders", attempts, contenders, size(need), size(avail))
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil && uint64(fds) > rl.Max {
		return limitf("each worker process would open %d files and connections, but this host allows %d per process (ulimit -n); lower --redis-pool, --redis-nodes or --pool", fds, rl.Max)
	}
	return nil
}

// availableMemory is the memory a new process may use: MemAvailable, or
// less when a cgroup limit leaves less.
func availableMemory() (uint64, bool) {
	avail, ok := memAvailable()
	if limit, used, cok := cgroupMemory(); cok && limit > used && (!ok || limit-used < avail) {
		return limit - used, true
	}
	return avail, ok
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// cgroupMemory reads the cgroup v2 memory limit and usage of this process's
// cgroup; ok is false without a limit.
func cgroupMemory() (limit, used uint64, ok bool) {
	read := func(name string) (uint64, bool) {
		b, err := os.ReadFile("/sys/fs/cgroup/" + name)
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		return n, err == nil
	}
	limit, ok = read("memory.max") // "max" when unlimited: no number
	if !ok {
		return 0, 0, false
	}
	used, ok = read("memory.current")
	return limit, used, ok
}

// size renders bytes as MiB or GiB.
func size(b uint64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", b>>20)
}

// CheckServers refuses, before anything is created, races the servers
// cannot hold: the PostgreSQL role must be allowed to create schemas, and
// Redis maxclients and PostgreSQL max_connections must leave room for the
// connections the largest race opens at once. A limit a server does not
// disclose is not checked. Errors matching ErrLimit name the setting and
// the number needed; others mean a server could not be asked. Both
// servers are asked at once; PostgreSQL's error comes first.
func CheckServers(ctx context.Context, redisURL, pgURL string, opts []Options) error {
	var needRedis, needPG int
	var widest Options
	for _, o := range opts {
		if redisConns(o) > needRedis {
			needRedis, widest = redisConns(o), o
		}
		needPG = max(needPG, pgConns(o))
	}
	var redisErr error
	var wg sync.WaitGroup
	wg.Go(func() { redisErr = checkRedis(ctx, redisURL, needRedis, widest) })
	pgErr := checkPostgres(ctx, pgURL, needPG, opts[0])
	wg.Wait()
	if pgErr != nil {
		return pgErr
	}
	return redisErr
}

// minPostgres is the oldest PostgreSQL hammer races against, as
// server_version_num: 12, the first with plan_cache_mode (see
// seatdb.Open).
const minPostgres = 120000

// checkPostgres checks the server's version, the role's CREATE privilege
// and max_connections.
func checkPostgres(ctx context.Context, pgURL string, need int, o Options) error {
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return fmt.Errorf("check postgresql limits: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version int
	var release string
	err = conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int, current_setting('server_version')").Scan(&version, &release)
	if err != nil {
		return fmt.Errorf("check postgresql version: %w", err)
	}
	if err := checkVersion(version, release); err != nil {
		return err // before the query below, which an older server could not answer
	}
	var maxConns, reserved, inUse int
	var super, create bool
	var role, db string
	err = conn.QueryRow(ctx, `SELECT current_setting('max_connections')::int,
		current_setting('superuser_reserved_connections')::int + coalesce(current_setting('reserved_connections', true), '0')::int,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int,
		(SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
		has_database_privilege(current_database(), 'CREATE'), current_user, current_database()`).
		Scan(&maxConns, &reserved, &inUse, &super, &create, &role, &db)
	if err != nil {
		return fmt.Errorf("check postgresql limits: %w", err)
	}
	if !create {
		return limitf("postgresql role %s may not create schemas in database %s, and hammer races in a schema of its own: GRANT CREATE ON DATABASE %s TO %s",
			role, db, pgx.Identifier{db}.Sanitize(), pgx.Identifier{role}.Sanitize())
	}
	if super {
		reserved = 0
	}
	if free := maxConns - reserved - inUse; need > free {
		return limitf("postgresql max_connections is %d (%d reserved, %d in use), but this run opens up to %d connections "+
			"(%d processes × --pool %d, plus 3 of hammer's own): raise max_connections to at least %d or lower --procs or --pool",
			maxConns, reserved, inUse, need, o.Procs, o.PoolSize, need+reserved+inUse)
	}
	return nil
}

// checkVersion refuses a PostgreSQL older than minPostgres: version is its
// server_version_num, release its server_version.
func checkVersion(version int, release string) error {
	if version < minPostgres {
		return limitf("postgresql is version %s, and hammer needs %d or later (its connections set plan_cache_mode)",
			release, minPostgres/10000)
	}
	return nil
}

// checkRedis checks maxclients; a server that hides it (CONFIG disabled,
// no maxclients in INFO) is not checked.
func checkRedis(ctx context.Context, redisURL string, need int, o Options) error {
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return fmt.Errorf("check redis limits: %w", err)
	}
	opt.PoolSize = 1
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	info, err := rdb.Info(ctx, "clients").Result()
	if err != nil {
		return fmt.Errorf("check redis limits: %w", err)
	}
	fields := infoFields(info)
	maxClients, ok := fields["maxclients"]
	if !ok {
		if cfg, err := rdb.ConfigGet(ctx, "maxclients").Result(); err == nil {
			maxClients, ok = atoi(cfg["maxclients"])
		}
	}
	if !ok {
		return nil
	}
	inUse := fields["connected_clients"]
	if free := maxClients - inUse; need > free {
		return limitf("redis maxclients is %d (%d in use), but this run opens up to %d connections "+
			"(%d processes × --redis-pool %d, plus 4 of hammer's own): raise maxclients to at least %d or lower --procs or --redis-pool",
			maxClients, inUse, need, o.Procs, o.withDefaults().RedisPool, need+inUse)
	}
	return nil
}

// infoFields parses the numeric "name:value" lines of an INFO reply.
func infoFields(info string) map[string]int {
	out := map[string]int{}
	for _, line := range strings.Split(info, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if n, isNum := atoi(value); ok && isNum {
			out[name] = n
		}
	}
	return out
}

func atoi(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}
