package driver

import (
	"context"
	"fmt"
	"strings"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/hammer-load/hammer/internal/stack"
)

// failover is the set-up of the failover fault: workers reach Redis through
// a proxy standing in for a virtual IP; a replica follows the primary over a
// second proxy whose latency keeps it behind, so a lock just taken on the
// primary has not reached the replica when the primary dies.
type failover struct {
	st      *stack.Stack
	vip     *toxiproxy.Proxy // what workers connect to
	link    *toxiproxy.Proxy // what the replica replicates through
	replica *stack.Replica
	killed  bool
}

// startFailover sets up primary, lagging replica and proxies, and returns
// the Redis URL workers should use.
func startFailover(ctx context.Context, st *stack.Stack, redisURL string, lag time.Duration) (*failover, string, error) {
	if st == nil || st.Kind != stack.Local {
		return nil, "", fmt.Errorf("the failover fault needs a stack hammer manages (--stack local)")
	}
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	f := &failover{st: st}
	var viaVIP string
	var err error
	if f.vip, viaVIP, err = proxyFor(server, "redis", redisURL); err != nil {
		return nil, "", err
	}
	primary := f.vip.Upstream
	f.link = toxiproxy.NewProxy(server, "replication", "127.0.0.1:0", primary)
	if err := f.link.Start(); err != nil {
		f.vip.Stop()
		return nil, "", fmt.Errorf("start replication proxy: %w", err)
	}
	if f.replica, err = st.StartReplica(ctx, f.link.Listen); err != nil {
		f.stop(ctx)
		return nil, "", err
	}
	// Once in sync, everything the primary sends the replica arrives late.
	toxic := fmt.Sprintf(`{"name":"lag","type":"latency","stream":"downstream","toxicity":1,"attributes":{"latency":%d}}`,
		lag.Milliseconds())
	if _, err := f.link.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
		f.stop(ctx)
		return nil, "", fmt.Errorf("slow down replication: %w", err)
	}
	return f, viaVIP, nil
}

// fail kills the primary, promotes the replica and points the virtual IP
// at it, the way a failover manager would.
func (f *failover) fail(ctx context.Context) (string, error) {
	f.link.Stop() // what was still on its way to the replica is lost
	if err := f.st.KillRedis(); err != nil {
		return "", err
	}
	f.killed = true
	if err := f.replica.Promote(ctx); err != nil {
		return "", err
	}
	f.vip.Stop()
	f.vip.Upstream = f.replica.Addr
	if err := f.vip.Start(); err != nil {
		return "", fmt.Errorf("point clients at the new primary: %w", err)
	}
	return fmt.Sprintf("the Redis primary was killed before the lock key replicated; the replica (%s) was promoted and clients switched to it", f.replica.Addr), nil
}

// stop removes the replica and the proxies and, if the primary was killed,
// starts a fresh one on its port for whatever runs next.
func (f *failover) stop(ctx context.Context) error {
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
