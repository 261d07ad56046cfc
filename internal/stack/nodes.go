package stack

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

// redisNode is a further Redis server of a Local stack, a node of a
// Redlock besides the stack's own Redis (node 0).
type redisNode struct {
	port int
	proc *proc
}

// redisURL is the URL of a local Redis on port.
func redisURL(port int) string { return fmt.Sprintf("redis://127.0.0.1:%d/0", port) }

// startPeers starts n more redis-servers, each on a free port of its own
// and without persistence, logging to redis-<node>.log.
func (l *localServers) startPeers(ctx context.Context, n int) error {
	for i := 1; i <= n; i++ {
		node := &redisNode{}
		var err error
		node.port, err = onFreePort(func(port int) error {
			p, err := l.startRedis(ctx, port, peerLog(i))
			if p != nil && err != nil {
				_ = p.stop(redisGrace, syscall.SIGTERM)
				return err
			}
			node.proc = p
			return err
		})
		if err != nil {
			return fmt.Errorf("redis node %d: %w", i, err)
		}
		l.peers = append(l.peers, node)
	}
	return nil
}

// peerLog is the log file of Redis node i.
func peerLog(i int) string { return fmt.Sprintf("redis-%d.log", i) }

// peerURLs are the URLs of the peers, in node order; nil without any.
func (l *localServers) peerURLs() []string {
	var out []string
	for _, n := range l.peers {
		out = append(out, redisURL(n.port))
	}
	return out
}

// stopPeers stops every peer.
func (l *localServers) stopPeers() error {
	var errs []error
	for _, n := range l.peers {
		errs = append(errs, n.proc.stop(redisGrace, syscall.SIGTERM))
	}
	return errors.Join(errs...)
}

// RestartRedisNode kills Redis node (0 is RedisURL, i the i-th of
// RedisPeers) and starts a fresh one on the same port without
// persistence, so every key it held is lost: a node of a Redlock that
// crashes and comes back empty (the node-restart fault). Only a Local
// stack can do this; other kinds return ErrUnsupported.
func (s *Stack) RestartRedisNode(ctx context.Context, node int) error {
	if node == 0 {
		return s.RestartRedis(ctx)
	}
	if s.Kind != Local || s.local == nil {
		return fmt.Errorf("restart redis node %d of a %s stack: %w", node, s.Kind, ErrUnsupported)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("restart redis: stack is closed")
	}
	if node < 0 || node > len(s.local.peers) {
		return fmt.Errorf("restart redis node %d: the stack has nodes 0 to %d", node, len(s.local.peers))
	}
	n := s.local.peers[node-1]
	fmt.Fprintf(s.local.log, "killing local redis-server node %d on 127.0.0.1:%d; a new one loses all keys\n", node, n.port)
	if err := n.proc.kill(); err != nil {
		return fmt.Errorf("restart redis node %d: %w", node, err)
	}
	p, err := s.local.startRedis(ctx, n.port, peerLog(node))
	if p != nil {
		n.proc = p
	}
	if err != nil {
		return fmt.Errorf("restart redis node %d: %w", node, err)
	}
	return nil
}
