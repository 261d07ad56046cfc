package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/inventory"
	"github.com/hammer-load/hammer/internal/redislock"
	"github.com/hammer-load/hammer/internal/strategy"
)

// WorkerMain is the body of a worker process: it reads its configuration
// from in, connects, reports ready, waits for the go signal, runs its
// contenders and streams one record per attempt to out. It returns the
// process exit code.
func WorkerMain(ctx context.Context, in io.Reader, out io.Writer) int {
	dec := json.NewDecoder(bufio.NewReader(in))
	w := &reporter{enc: json.NewEncoder(out)}
	var cfg workerConfig
	if err := dec.Decode(&cfg); err != nil {
		w.send(message{Fatal: fmt.Sprintf("read worker config: %v", err)})
		return 2
	}
	c, closeAll, err := connect(ctx, cfg)
	if err != nil {
		w.send(message{Fatal: err.Error()})
		return 3
	}
	defer closeAll()

	start := make(chan struct{})
	var warm, done sync.WaitGroup
	warmErrs := make(chan error, cfg.Goroutines)
	for g := range cfg.Goroutines {
		warm.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			// Each contender opens its own Redis connection before the start.
			err := c.Locker.Ping(ctx)
			warm.Done()
			if err != nil {
				warmErrs <- err
				return
			}
			<-start
			contend(ctx, cfg, c, g, w)
		}()
	}
	warm.Wait()
	select {
	case err := <-warmErrs:
		w.send(message{Fatal: fmt.Sprintf("redis warm-up: %v", err)})
		return 3
	default:
	}
	w.send(message{Ready: true})

	var sig goSignal
	if err := dec.Decode(&sig); err != nil {
		// The coordinator went away before the start: nothing was attempted.
		return 3
	}
	time.Sleep(time.Until(time.Unix(0, sig.At)))
	close(start)
	done.Wait()
	w.send(message{Done: true})
	return 0
}

// contend makes goroutine g's attempts one after the other.
func contend(ctx context.Context, cfg workerConfig, c *strategy.Contender, g int, w *reporter) {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.Proc)<<32|uint64(g)))
	for k := range cfg.Attempts {
		a := history.Attempt{
			Run:       cfg.Run,
			Mode:      string(cfg.Mode),
			Proc:      cfg.Proc,
			Goroutine: g,
			RequestID: RequestID(cfg.Proc, g, k),
		}
		c.Attempt(ctx, &a, rng)
		w.send(message{Attempt: &a})
	}
}

// connect opens the worker's Redis client and PostgreSQL pool and warms the pool.
func connect(ctx context.Context, cfg workerConfig) (*strategy.Contender, func(), error) {
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("redis url: %w", err)
	}
	// One connection per contender: waiting for a pooled connection would
	// blur the lock-wait measurement.
	opt.PoolSize = cfg.Goroutines
	opt.DialTimeout = 5 * time.Second
	rdb := redis.NewClient(opt)
	store, err := inventory.Open(ctx, cfg.PGURL, cfg.Schema, cfg.PoolSize)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	closeAll := func() { store.Close(); rdb.Close() }
	if err := store.Warm(ctx); err != nil {
		closeAll()
		return nil, nil, err
	}
	return &strategy.Contender{
		Mode:     cfg.Mode,
		Locker:   redislock.New(rdb, redislock.DefaultBackoff()),
		Store:    store,
		Sector:   cfg.Sector,
		LockKey:  cfg.LockKey,
		LockTTL:  cfg.LockTTL,
		LockWait: cfg.LockWait,
	}, closeAll, nil
}

// reporter serialises messages from many goroutines onto one stream.
type reporter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (r *reporter) send(m message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A failed write means the coordinator is gone; it will count the
	// missing records as unknown, so there is nobody left to tell.
	_ = r.enc.Encode(m)
}
