package fault

import (
	"context"
	"fmt"
	"time"

	"github.com/hammer-load/hammer/internal/redisstock"
	"github.com/hammer-load/hammer/internal/strategy"
)

// lossPoint is where lock-loss and failover, the faults that take away
// what Redis holds, strike a contender: inside its sale while it holds the
// lock or, in a mode without one (a mode admitted by a stock counter, the
// only kind they race), right before its sale, where the counter has yet
// to admit it, so that the counter that admits it is the one the fault
// left behind.
func lossPoint(usesLock bool) strategy.Point {
	if usesLock {
		return strategy.MidWrite
	}
	return strategy.Holding
}

// recount takes away what Redis holds with lose while contender t waits
// for its admission by the stock counter, once the counter has handed out
// every seat, then lets t go on, and says what the counter then held. The
// sales the counter admitted stand; t meets the counter the fault left.
func recount(ctx context.Context, c *Coordinator, t *Target, lose func(context.Context) (loss, error)) (string, error) {
	handed := awaitHandedOut(ctx, c)
	lost, err := lose(ctx)
	if err != nil {
		c.Procs.Resume(*t)
		return "", err
	}
	held := counterHeld(ctx, c)
	c.Procs.Resume(*t)
	return fmt.Sprintf("once the stock counter had %s, %s, before %s was admitted; %s", handed, lost.how, t.RequestID, held), nil
}

// stockWait bounds how long recount waits for the counter to hand out
// every seat (a race with fewer contenders than seats never does).
const stockWait = 5 * time.Second

// awaitHandedOut waits until the stock counter has handed out every seat,
// and a moment more for the answers to the last admissions to reach their
// contenders, or until stockWait passed; it says how far the counter got.
func awaitHandedOut(ctx context.Context, c *Coordinator) string {
	rdb, err := dial(c.WatchRedisURL)
	if err != nil {
		return "unknown progress (it could not be watched: " + err.Error() + ")"
	}
	defer rdb.Close()
	counter := redisstock.New(rdb, c.StockKey)
	left := int64(c.Seats)
	for deadline := time.Now().Add(stockWait); time.Now().Before(deadline); {
		if n, err := counter.Left(ctx); err == nil {
			left = n
		}
		if left <= 0 {
			Sleep(ctx, 20*time.Millisecond)
			return fmt.Sprintf("handed out all %d seats", c.Seats)
		}
		if !Sleep(ctx, time.Millisecond) {
			break
		}
	}
	return fmt.Sprintf("handed out %d of %d seats (it did not run out within %s)", int64(c.Seats)-left, c.Seats, stockWait)
}

// counterHeld says in words what the stock counter holds, as the workers
// reach it.
func counterHeld(ctx context.Context, c *Coordinator) string {
	rdb, err := dial(c.WatchRedisURL)
	if err != nil {
		return "the counter could not be read: " + err.Error()
	}
	defer rdb.Close()
	left, err := redisstock.New(rdb, c.StockKey).Left(ctx)
	if err != nil {
		return "the counter could not be read: " + err.Error()
	}
	return fmt.Sprintf("the counter then held %d of %d seats", left, c.Seats)
}

// loseStock is lock-loss in a mode admitted by a stock counter: Redis
// comes back from a snapshot taken before the sale, so the counter is at
// full stock again while the seats it had handed out stay sold. On a stack
// hammer manages Redis really restarts (every key lost) and the counter is
// written back at full stock, as loading that snapshot would; on an
// external Redis hammer only sets its own counter back.
func loseStock(ctx context.Context, c *Coordinator) (loss, error) {
	how := fmt.Sprintf("hammer set it back to its full stock of %d (emulating a Redis restart from a snapshot taken before the sale)", c.Seats)
	if c.Managed != nil {
		if err := c.Managed.RestartRedis(ctx); err != nil {
			return loss{}, fmt.Errorf("restart redis: %w", err)
		}
		how = fmt.Sprintf("Redis restarted and came back from a snapshot taken before the sale, with the counter at its full stock of %d", c.Seats)
	}
	rdb, err := dial(c.RedisURL)
	if err != nil {
		return loss{}, err
	}
	defer rdb.Close()
	if err := redisstock.New(rdb, c.StockKey).Seed(ctx, c.Seats); err != nil {
		return loss{}, err
	}
	return loss{how: how}, nil
}
