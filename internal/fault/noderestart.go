package fault

import (
	"context"
	"fmt"

	"github.com/hammer-load/hammer/internal/strategy"
)

// nodeRestart replays the Redis docs' Redlock timeline of a crash without
// persistence ("Distributed locks with Redis", crash recovery and fsync):
// while a struck holder has the lock on a bare majority of the nodes, a
// node of that majority restarts with every key lost, and another
// contender wins a majority with it. Only a stack hammer started can
// restart a node.
type nodeRestart struct{ Base }

// At asks the coordinator to restart a node of the holder's majority when
// a struck holder reaches the point between its read and its write.
func (nodeRestart) At(ctx context.Context, w *Worker, h Hit) error {
	return strikeAt(ctx, w, h, strategy.MidWrite)
}

// Strike restarts a node of the struck holder's (bare) majority, waits for
// another contender to take a majority and lets the holder go on.
func (nodeRestart) Strike(ctx context.Context, c *Coordinator, t *Target) (string, error) {
	return strikeMajority(ctx, c, t, func(ctx context.Context, m *majority) (string, error) {
		if c.Managed == nil {
			return "", fmt.Errorf("the node-restart fault needs a stack hammer manages (--stack local)")
		}
		if err := c.Managed.RestartRedisNode(ctx, m.victim); err != nil {
			return "", err
		}
		return fmt.Sprintf("node %d restarted without persistence (every key it held lost)", m.victim), nil
	})
}
