package fault

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// proxies are in-process TCP proxies (toxiproxy) between the workers and
// the two servers, through which the network faults act. The coordinator
// keeps its direct URLs; the workers get the proxies'.
type proxies struct {
	Base
	redis, pg *toxiproxy.Proxy
}

// SetUp starts one proxy per server on a free loopback port and points the
// workers at them; the coordinator's watch bypasses them, since they cut
// on purpose.
func (p *proxies) SetUp(_ context.Context, r Race) (Servers, error) {
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	var err error
	var viaRedis, viaPG string
	if p.redis, viaRedis, err = proxyFor(server, "redis", r.RedisURL); err != nil {
		return Servers{}, err
	}
	if p.pg, viaPG, err = proxyFor(server, "postgres", r.PGURL); err != nil {
		p.redis.Stop()
		p.redis = nil
		return Servers{}, err
	}
	return Servers{RedisURL: viaRedis, PGURL: viaPG, WatchRedisURL: r.RedisURL}, nil
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

// TearDown stops both proxies.
func (p *proxies) TearDown(context.Context) {
	if p.redis != nil {
		p.redis.Stop()
		p.pg.Stop()
	}
}

// both returns the two proxies.
func (p *proxies) both() []*toxiproxy.Proxy { return []*toxiproxy.Proxy{p.redis, p.pg} }
