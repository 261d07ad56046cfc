package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/internal/wire"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Contender is how the goroutines of a worker process try to buy a seat.
// The worker owns the go signal, the open and closed models, the records
// and the histograms; a contender only makes attempts. The built-in
// strategies racing on Redis and PostgreSQL are one implementation
// (builtin); an attempt that goes to a user's HTTP service is another
// implementation of the same interface, which a worker binary offers in
// its Kit: the race engine needs no change for it.
type Contender interface {
	// Warm readies what one goroutine alone uses for its attempts (a
	// connection of its own, if the kind keeps one), before the go signal;
	// an error fails the start-up. What the goroutines share is readied
	// by Connect.
	Warm(ctx context.Context) error
	// Attempt makes one attempt and records it in a: the instants of its
	// phases and its outcome. It never fails: an error is an outcome.
	Attempt(ctx context.Context, a *history.Attempt, rng *rand.Rand)
}

// Connect makes the Contender of one worker process, of a kind other than
// the built-in strategies, from the settings the coordinator sent
// (driver.Options.ContenderConfig); it opens what the process's
// goroutines share, and close releases it.
type Connect func(ctx context.Context, s Session) (c Contender, close func(), err error)

// Session is what a worker process knows when it connects its contender.
type Session struct {
	// Proc is the worker's number, Goroutines how many goroutines make
	// attempts through the contender at once.
	Proc, Goroutines int
	// Seed is the race's seed.
	Seed uint64
	// Config is driver.Options.ContenderConfig, as the coordinator sent it.
	Config json.RawMessage
	// Coordinator is the coordinator's address as this worker's agent
	// reached it (wire.Config.Coordinator); empty for a worker the
	// coordinator started on its own host.
	Coordinator string
}

// Kit is what a worker binary offers besides the built-in strategies.
type Kit struct {
	// Contenders connect contenders of other kinds, by the name
	// driver.Options.Contender gives.
	Contenders map[string]Connect
	// Plants are broken variants of the built-in strategies, by the name
	// driver.Options.Plant gives (test binaries only).
	Plants map[string]Plant
	// ClockOffset plays a host whose clock reads this much ahead of the
	// real one (tests of agents only): the worker reads its go signal and
	// stamps its records on that clock. Zero in real use.
	ClockOffset time.Duration
}

// check refuses a configuration that names a contender kind or a plant
// the kit does not have.
func (k Kit) check(cfg wire.Config) error {
	if _, ok := k.Contenders[cfg.Contender]; cfg.Contender != "" && !ok {
		return fmt.Errorf("unknown contender kind %q", cfg.Contender)
	}
	if _, ok := k.Plants[cfg.Plant]; cfg.Plant != "" && !ok {
		return fmt.Errorf("unknown planted variant %q", cfg.Plant)
	}
	return nil
}

// connect makes the worker's contender: of the kind cfg names, or the
// built-in strategy of its mode.
func (k Kit) connect(ctx context.Context, cfg wire.Config, w *reporter, res *resumes) (Contender, func(), error) {
	if cfg.Contender != "" {
		return k.Contenders[cfg.Contender](ctx, Session{
			Proc: cfg.Proc, Goroutines: cfg.Goroutines, Seed: cfg.Seed, Config: cfg.ContenderConfig,
			Coordinator: cfg.Coordinator,
		})
	}
	return connectBuiltin(ctx, cfg, w, res, k.Plants[cfg.Plant])
}

// Plant deliberately breaks a built-in contender. Test binaries register
// plants to prove that the gate catches classic mistakes; the hammer
// binary has none.
type Plant func(c *strategy.Contender, d strategy.Deps)

// builtin is the built-in strategies as a Contender.
type builtin struct {
	c *strategy.Contender
}

var _ Contender = (*builtin)(nil)

// Warm does nothing: the goroutines of a worker share its Redis and
// PostgreSQL pools, like the requests of one replica, and connectBuiltin
// opened both before any goroutine started.
func (b *builtin) Warm(context.Context) error { return nil }

// Attempt makes one attempt in the contender's mode.
func (b *builtin) Attempt(ctx context.Context, a *history.Attempt, rng *rand.Rand) {
	b.c.Attempt(ctx, a, rng)
}

// connectBuiltin opens the worker's Redis and PostgreSQL pools, opens
// every connection of both, and wires the built-in contender of the
// configured mode, broken by plant if one is given.
func connectBuiltin(ctx context.Context, cfg wire.Config, w *reporter, res *resumes, plant Plant) (Contender, func(), error) {
	opt, err := redisOptions(cfg)
	if err != nil {
		return nil, nil, err
	}
	rdb := redis.NewClient(opt)
	store, err := seatdb.Open(ctx, cfg.PGURL, cfg.Schema, cfg.PoolSize)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	closeAll := func() { store.Close(); rdb.Close() }
	if err := warmBoth(ctx, rdb, cfg.RedisPool, store); err != nil {
		closeAll()
		return nil, nil, err
	}
	peers, closePeers, err := openPeers(ctx, cfg)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	closeMain := closeAll
	closeAll = func() { closePeers(); closeMain() }
	inj, err := newInjector(cfg, rdb, peers, w, res)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	nodes := universal(append([]*redis.Client{rdb}, peers...))
	lock, err := newLock(cfg, nodes)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	var hint *strategy.SoldOutHint
	if cfg.Mode.UsesLock() {
		if cfg.SoldOutHint {
			hint = strategy.NewSoldOutHint(rdb, soldOutKey(cfg))
		}
		stop, err := listen(ctx, cfg, rdb, inj.locker, hint)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closeStore := closeAll
		closeAll = func() { stop(); closeStore() }
	}
	deps := strategy.Deps{
		Redis:    rdb,
		Locker:   inj.locker,
		Store:    store,
		Sector:   cfg.Sector,
		LockKey:  cfg.LockKey,
		FenceKey: cfg.FenceKey,
		StockKey: cfg.StockKey,
		LockTTL:  cfg.LockTTL,
		LockWait: cfg.LockWait,
		Extend:   cfg.Extend,
		World:    inj.world,
		SoldOut:  hint,
		Nodes:    nodes,
		Lock:     lock,
	}
	if cfg.Fault != scenarios.NoFault {
		deps.Faults = inj
	}
	c := strategy.New(cfg.Mode, deps)
	if plant != nil {
		plant(c, deps)
	}
	return &builtin{c: c}, closeAll, nil
}

// redisOptions are the options of the worker's Redis client: one pool per
// worker process, as a replica of a service keeps, whose goroutines take
// turns on cfg.RedisPool connections.
func redisOptions(cfg wire.Config) (*redis.Options, error) {
	return redisOptionsAt(cfg, cfg.RedisURL)
}

// redisOptionsAt are the options of the worker's client of the Redis at
// rawURL: node 0, or another node of a Redlock.
func redisOptionsAt(cfg wire.Config, rawURL string) (*redis.Options, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opt.PoolSize = cfg.RedisPool
	// Waiting for a connection is part of the attempt (of its lock wait,
	// while it waits for the lock), so it may last as long: a shorter pool
	// timeout would turn a queue at the pool into errors blamed on Redis.
	opt.PoolTimeout = max(cfg.LockWait, 5*time.Second)
	opt.DialTimeout = 5 * time.Second
	// No maintenance notifications (a Redis Enterprise feature): in their
	// default auto mode each new connection asks for them, and the first
	// refusal switches them off in the options every connection shares,
	// which races when warmRedis opens connections at once.
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return opt, nil
}

// warmBoth warms the Redis pool (warmRedis) and the PostgreSQL pool
// (seatdb.Store.Warm) at once, and returns the first error.
func warmBoth(ctx context.Context, rdb *redis.Client, n int, store *seatdb.Store) error {
	var redisErr error
	var wg sync.WaitGroup
	wg.Go(func() { redisErr = warmRedis(ctx, rdb, n) })
	pgErr := store.Warm(ctx)
	wg.Wait()
	if redisErr != nil {
		return redisErr
	}
	return pgErr
}

// warmRedis opens n connections of rdb's pool at once, pings each and
// hands them back idle, so that the race does not pay for connection
// set-up.
func warmRedis(ctx context.Context, rdb *redis.Client, n int) error {
	conns := make([]*redis.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range conns {
		conns[i] = rdb.Conn()
		wg.Go(func() { errs[i] = conns[i].Ping(ctx).Err() })
	}
	wg.Wait()
	for _, c := range conns {
		_ = c.Close() // hands the connection back to rdb's pool
	}
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("redis warm-up: %w", err)
		}
	}
	return nil
}
