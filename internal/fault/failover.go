package fault

import (
	"context"
	"fmt"
	"strings"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/strategy"
)

// failover runs Redis as a primary with a lagging replica; while a struck
// holder has the lock, the primary dies before the key replicated, the
// replica is promoted and clients move to it. Workers reach Redis through
// a proxy standing in for a virtual IP; the replica follows the primary
// over a second proxy whose latency keeps it behind.
type failover struct {
	Base
	st      *stack.Stack
	vip     *toxiproxy.Proxy // what workers connect to
	link    *toxiproxy.Proxy // what the replica replicates through
	replica *stack.Replica
	killed  bool
}

// SetUp starts the lagging replica and the proxies, and points the
// workers, and the coordinator's watch, at the virtual IP: they follow it
// to the promoted replica.
func (f *failover) SetUp(ctx context.Context, r Race) (Servers, error) {
	via, err := f.start(ctx, r.Managed, r.RedisURL, 10*r.LockTTL)
	if err != nil {
		return Servers{}, err
	}
	return Servers{RedisURL: via, PGURL: r.PGURL, WatchRedisURL: via}, nil
}

// CountsAt numbers holders where the fault strikes them (lossPoint).
func (f *failover) CountsAt(p strategy.Point, usesLock bool) bool { return p == lossPoint(usesLock) }

// At asks the coordinator to fail over while a struck holder has the lock
// or, in a mode with a stock counter, before a struck contender's
// admission (lossPoint).
func (f *failover) At(ctx context.Context, w *Worker, h Hit) error {
	return strikeAt(ctx, w, h, lossPoint(h.Attempt.Mode.UsesLock()))
}

// Strike fails over, waits for another contender to take the lost lock
// and lets the struck holder go on; in a mode with a stock counter it
// lets the struck contender go on to be admitted by the promoted replica's
// counter, which missed the decrements that had not replicated.
func (f *failover) Strike(ctx context.Context, c *Coordinator, t *Target) (string, error) {
	if c.StockKey != "" {
		return recount(ctx, c, t, f.failing(c, "the stock counter's latest decrements"))
	}
	return overlap(ctx, c, t, f.failing(c, "the lock key"))
}

// TearDown removes the replica and the proxies; the next race gets a
// fresh primary either way, and a failed clean-up here shows as that
// race's set-up error.
func (f *failover) TearDown(ctx context.Context) {
	if f.vip != nil {
		_ = f.stop(ctx)
	}
}

// start sets up primary, lagging replica and proxies, and returns the
// Redis URL workers should use.
func (f *failover) start(ctx context.Context, st *stack.Stack, redisURL string, lag time.Duration) (string, error) {
	if st == nil || st.Kind != stack.Local {
		return "", fmt.Errorf("the failover fault needs a stack hammer manages (--stack local)")
	}
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	f.st = st
	var viaVIP string
	var err error
	if f.vip, viaVIP, err = proxyFor(server, "redis", redisURL); err != nil {
		return "", err
	}
	primary := f.vip.Upstream
	f.link = toxiproxy.NewProxy(server, "replication", "127.0.0.1:0", primary)
	if err := f.link.Start(); err != nil {
		f.vip.Stop()
		f.vip = nil
		return "", fmt.Errorf("start replication proxy: %w", err)
	}
	if f.replica, err = st.StartReplica(ctx, f.link.Listen); err != nil {
		_ = f.stop(ctx)
		return "", err
	}
	// Once in sync, everything the primary sends the replica arrives late.
	toxic := fmt.Sprintf(`{"name":"lag","type":"latency","stream":"downstream","toxicity":1,"attributes":{"latency":%d}}`,
		lag.Milliseconds())
	if _, err := f.link.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
		_ = f.stop(ctx)
		return "", fmt.Errorf("slow down replication: %w", err)
	}
	return viaVIP, nil
}

// failing returns fail, saying that what had not replicated was lost.
func (f *failover) failing(c *Coordinator, lost string) func(context.Context) (loss, error) {
	return func(ctx context.Context) (loss, error) {
		counted, err := f.fail(ctx, c.HolderKey)
		if err != nil {
			return loss{}, err
		}
		how := fmt.Sprintf("the Redis primary was killed before %s replicated; the replica (%s) was promoted and clients switched to it", lost, f.replica.Addr)
		return loss{how: how, counted: counted}, nil
	}
}

// fail kills the primary, promotes the replica and points the virtual IP
// at it, the way a failover manager would. It returns the holders the
// promoted replica had counted at holderKey, read before any client could
// reach it (the count, too, lags).
func (f *failover) fail(ctx context.Context, holderKey string) (int64, error) {
	f.link.Stop() // what was still on its way to the replica is lost
	if err := f.st.KillRedis(); err != nil {
		return 0, err
	}
	f.killed = true
	if err := f.replica.Promote(ctx); err != nil {
		return 0, err
	}
	rdb, err := dial("redis://" + f.replica.Addr)
	if err != nil {
		return 0, err
	}
	n, err := holdersCounted(ctx, rdb, holderKey)
	rdb.Close()
	if err != nil {
		return 0, err
	}
	f.vip.Stop()
	f.vip.Upstream = f.replica.Addr
	if err := f.vip.Start(); err != nil {
		return 0, fmt.Errorf("point clients at the new primary: %w", err)
	}
	return n, nil
}

// stop removes the replica and the proxies and, if the primary was killed,
// starts a fresh one on its port for whatever runs next.
func (f *failover) stop(ctx context.Context) error {
	defer func() { f.vip = nil }()
	f.vip.Stop()
	f.link.Stop()
	var err error
	if f.replica != nil {
		err = f.replica.Close()
	}
	if f.killed {
		if rerr := f.st.RestartRedis(context.WithoutCancel(ctx)); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}
