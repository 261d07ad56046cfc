package target

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"

	"github.com/hammer-load/hammer/internal/relay"
)

// relaying is how the replicas hammer starts are reached from agents on
// other hosts: each replica listens on this host's loopback, and a relay
// on host (an address the agents reach: the coordinator's --listen)
// forwards connections to it.
type relaying struct {
	host    string       // "" relays nothing
	from    []netip.Addr // the agents' addresses, the only ones served
	running []*relay.Relay
}

// RelayOn has every replica hammer starts relayed on host, an address of
// this host that agents on other hosts reach (they join the coordinator
// there), for connections from the addresses from only (the agents'):
// each race's Request then also names the relays' ports, which a worker
// on such an agent uses instead of the replicas' loopback URLs. The
// replicas themselves still listen on loopback only. Replicas listed in
// the file's urls: are never relayed.
func (b *Backend) RelayOn(host string, from []netip.Addr) { b.relay.host, b.relay.from = host, from }

// startRelays starts a relay for each of the replicas at urls (loopback
// base URLs) when the backend relays, and returns their ports in replica
// order; nil when it does not.
func (b *Backend) startRelays(urls []string) ([]int, error) {
	if b.relay.host == "" {
		return nil, nil
	}
	ports := make([]int, 0, len(urls))
	for i, u := range urls {
		p, err := url.Parse(u)
		if err != nil {
			b.stopRelays()
			return nil, fmt.Errorf("relay replica %d: %w", i, err)
		}
		r, err := relay.Listen(net.JoinHostPort(b.relay.host, "0"), p.Host, b.relay.from)
		if err != nil {
			b.stopRelays()
			return nil, fmt.Errorf("relay replica %d for the agents: %w", i, err)
		}
		b.relay.running = append(b.relay.running, r)
		ports = append(ports, r.Port())
	}
	return ports, nil
}

// stopRelays closes every relay and the connections through it.
func (b *Backend) stopRelays() {
	for _, r := range b.relay.running {
		r.Close()
	}
	b.relay.running = nil
}

// reachedFrom is r as a worker reaches the replicas when its agent
// reached the coordinator at coordinator: through the relays when r has
// them and the agent is not on the coordinator's own loopback, else at
// r's replica URLs.
func (r Request) reachedFrom(coordinator string) Request {
	ip := net.ParseIP(coordinator)
	if coordinator == "" || len(r.Relays) == 0 || (ip != nil && ip.IsLoopback()) {
		return r
	}
	r.Replicas = make([]string, len(r.Relays))
	for i, port := range r.Relays {
		r.Replicas[i] = "http://" + net.JoinHostPort(coordinator, strconv.Itoa(port))
	}
	return r
}
