package driver

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// netProxies are in-process TCP proxies (toxiproxy) between the workers and
// the two servers, through which the net-delay and partition faults act.
type netProxies struct {
	redis, pg *toxiproxy.Proxy
}

// startProxies starts one proxy per server on a free loopback port and
// returns the URLs workers should use instead.
func startProxies(redisURL, pgURL string) (*netProxies, string, string, error) {
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	p := &netProxies{}
	var err error
	var viaRedis, viaPG string
	if p.redis, viaRedis, err = proxyFor(server, "redis", redisURL); err != nil {
		return nil, "", "", err
	}
	if p.pg, viaPG, err = proxyFor(server, "postgres", pgURL); err != nil {
		p.redis.Stop()
		return nil, "", "", err
	}
	return p, viaRedis, viaPG, nil
}

// proxyFor proxies the server of rawURL and returns the URL through it.
func proxyFor(server *toxiproxy.ApiServer, name, rawURL string) (*toxiproxy.Proxy, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || !strings.Contains(u.Host, ":") {
		return nil, "", fmt.Errorf("network faults need a %s URL with host:port", name)
	}
	p := toxiproxy.NewProxy(server, name, "127.0.0.1:0", u.Host)
	if err := p.Start(); err != nil {
		return nil, "", fmt.Errorf("start %s proxy: %w", name, err)
	}
	u.Host = p.Listen
	return p, u.String(), nil
}

// window injects fault f from start for d (less when ctx ends first), then
// heals it, and returns the fault event.
func (p *netProxies) window(ctx context.Context, run string, f scenarios.Fault, start time.Time, d time.Duration) history.FaultEvent {
	sleep(ctx, time.Until(start))
	ev := history.FaultEvent{Run: run, Fault: f, Proc: -1, Goroutine: -1, Start: time.Now().UnixNano()}
	var err error
	switch f {
	case scenarios.NetDelay:
		err = p.delay(ctx, d)
		ev.Detail = fmt.Sprintf("every connection to Redis and PostgreSQL delayed by %s per response for %s", d/3, d)
	case scenarios.Partition:
		err = p.partition(ctx, d)
		ev.Detail = fmt.Sprintf("every connection to Redis and PostgreSQL cut, and new ones refused, for %s", d)
	}
	if err != nil {
		ev.Failed = err.Error()
	}
	ev.End = time.Now().UnixNano()
	return ev
}

// delay adds latency (a third of the window) to every response, then
// removes it.
func (p *netProxies) delay(ctx context.Context, d time.Duration) error {
	toxic := fmt.Sprintf(`{"name":"delay","type":"latency","stream":"downstream","toxicity":1,"attributes":{"latency":%d}}`,
		(d / 3).Milliseconds())
	for _, px := range []*toxiproxy.Proxy{p.redis, p.pg} {
		if _, err := px.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
			return fmt.Errorf("add latency to %s: %w", px.Name, err)
		}
	}
	sleep(ctx, d)
	for _, px := range []*toxiproxy.Proxy{p.redis, p.pg} {
		px.Toxics.ResetToxics(context.Background())
	}
	return nil
}

// partition stops both proxies (closing every connection) and starts them
// again on the same ports.
func (p *netProxies) partition(ctx context.Context, d time.Duration) error {
	p.redis.Stop()
	p.pg.Stop()
	sleep(ctx, d)
	if err := p.redis.Start(); err != nil {
		return fmt.Errorf("heal redis proxy: %w", err)
	}
	if err := p.pg.Start(); err != nil {
		return fmt.Errorf("heal postgres proxy: %w", err)
	}
	return nil
}

func (p *netProxies) stop() {
	p.redis.Stop()
	p.pg.Stop()
}

// netFaultDelay is when, after the go signal, a network fault starts: a few
// milliseconds in, with the first sales in flight, varied by the seed.
func netFaultDelay(seed uint64) time.Duration {
	return 5*time.Millisecond + time.Duration(seed%10)*time.Millisecond
}
