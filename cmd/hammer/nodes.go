package main

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/scenarios"
)

// redisURLs are the Redis URLs of an external stack: --redis-url (or
// $HAMMER_REDIS_URL) split at commas, one URL per Redis node, node 0
// first; nil when none is given.
func (f *raceFlags) redisURLs() []string {
	if strings.TrimSpace(f.redisURL) == "" {
		return nil
	}
	urls := strings.Split(f.redisURL, ",")
	for i, u := range urls {
		urls[i] = strings.TrimSpace(u)
	}
	return urls
}

// external reports whether the flags ask for an external stack: its kind,
// or auto with URLs given.
func (f *raceFlags) external() bool {
	kind, _ := stack.ParseKind(f.stackKind)
	return kind == stack.External || kind == stack.Auto && f.redisURL != "" && f.pgURL != ""
}

// checkNodes validates --redis-nodes and the URLs of an external stack's
// nodes for the scenarios they will race: an odd number of nodes, one URL
// per node, a fault that strikes a Redlock's majority on enough nodes, and
// no Redlock for a service, whose lock is its own.
func (f *raceFlags) checkNodes(scns []scenarios.Scenario) error {
	urls := f.redisURLs()
	kind, _ := stack.ParseKind(f.stackKind)
	switch {
	case f.redisNodes < 1 || f.redisNodes%2 == 0:
		return fmt.Errorf("--redis-nodes must be odd and at least 1 (a majority of an even number of nodes survives no more failures than of one fewer), got %d", f.redisNodes)
	case f.target.file != nil && f.redisNodes > 1:
		return fmt.Errorf("--redis-nodes races hammer's own lock over several Redis nodes; a --target service takes its own lock")
	case f.external() && slices.Contains(urls, ""):
		return fmt.Errorf("%s lists an empty URL: give one URL per Redis node, separated by commas", f.redisFrom)
	case f.external() && len(urls) != f.redisNodes:
		return fmt.Errorf("%s lists %s for --redis-nodes %d: give one URL per node, separated by commas",
			f.redisFrom, plural(len(urls), "1 Redis URL", fmt.Sprintf("%d Redis URLs", len(urls))), f.redisNodes)
	case kind == stack.Docker && f.redisNodes > 1:
		return fmt.Errorf("--redis-nodes %d needs --stack local or external: a docker stack runs one Redis", f.redisNodes)
	case f.external():
		if node, ok := repeatedNode(urls); ok {
			return fmt.Errorf("%s lists the same Redis node twice (%s): a Redlock's nodes must be distinct, or no majority can ever take the lock", f.redisFrom, node)
		}
	}
	for _, sc := range scns {
		if err := f.withNodes(sc).CheckNodes(); err != nil {
			return fmt.Errorf("%w (set --redis-nodes)", err)
		}
	}
	return nil
}

// repeatedNode returns the first Redis node (address and database, never
// the password) that urls name twice. URLs that do not parse are left to
// the stack's own check, which names the flag.
func repeatedNode(urls []string) (string, bool) {
	seen := map[string]bool{}
	for _, u := range urls {
		opt, err := redis.ParseURL(u)
		if err != nil {
			continue
		}
		node := fmt.Sprintf("%s, database %d", opt.Addr, opt.DB)
		if seen[node] {
			return node, true
		}
		seen[node] = true
	}
	return "", false
}

// withNodes is sc raced on --redis-nodes Redis nodes, unless it says how
// many itself (a matrix cell's nodes=N), named after them.
func (f *raceFlags) withNodes(sc scenarios.Scenario) scenarios.Scenario {
	if sc.Nodes == 0 && f.redisNodes > 1 && sc.Mode.UsesLock() {
		sc.Nodes = f.redisNodes
		return sc.Named()
	}
	return sc
}

// stackNodes is how many Redis nodes the stack needs: one per URL of an
// external stack (cells that need more are not run), else --redis-nodes
// or the most a scenario takes its lock on.
func (f *raceFlags) stackNodes(scns []scenarios.Scenario) int {
	if f.external() {
		return len(f.redisURLs())
	}
	n := f.redisNodes
	for _, sc := range scns {
		n = max(n, sc.Nodes)
	}
	return n
}

// withNodeURLs is args with each comma-separated list of URLs replaced by
// its pieces: the URL of each Redis node of a --redis-url list, whose
// passwords must be masked. A list read whole would make its hosts look
// like part of a password. A piece that is not a URL of its own may be
// part of a password with a comma: then the whole is kept as well.
func withNodeURLs(args []string) []string {
	var out []string
	for _, a := range args {
		value := a
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			value = v // --redis-url=LIST
		}
		pieces := strings.Split(value, ",")
		if len(pieces) == 1 || slices.ContainsFunc(pieces, notURL) {
			out = append(out, a)
		}
		if len(pieces) > 1 {
			out = append(out, pieces...)
		}
	}
	return out
}

// notURL reports whether s is not a URL with a scheme and a host.
func notURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err != nil || u.Scheme == "" || u.Host == ""
}
