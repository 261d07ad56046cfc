package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/redislock"
	"github.com/hammer-load/hammer/scenarios"
)

// schedule picks, from the seed, which lock holders a scheduled fault
// strikes: holder numbers in the first half of the sale (of the seats, or
// of the contenders when they are fewer), so that seats are still left and
// holders still come when the fault hits.
func schedule(f scenarios.Fault, seed uint64, run string, seats, contenders int) []int64 {
	count := f.Strikes()
	if count == 0 {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(run))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	hi := max(min(seats, contenders)/2, 2*count+2)
	var out []int64
	for len(out) < count {
		n := int64(2 + rng.IntN(hi-1))
		// Slow release also strikes the next holder: keep them apart.
		if !slices.Contains(out, n) && !slices.Contains(out, n-1) && !slices.Contains(out, n+1) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// striker is the coordinator's side of fault injection: it stops, kills or
// loses the lock of the contenders that reach their fault point, records
// each fault, and resumes them.
type striker struct {
	o       Options
	fleet   *fleet
	lockKey string
	// watchURL is the Redis the workers use, where a new holder shows up.
	watchURL string
	failover *failover // set for the failover fault
	left     int       // strikes still to make; later requests resume at once

	mu     sync.Mutex
	events []history.FaultEvent
	wg     sync.WaitGroup
}

// handle acts on one strike request without blocking the collector.
func (s *striker) handle(ctx context.Context, st strike) {
	if s.left <= 0 {
		s.fleet.resume(st.Proc, st.Key)
		return
	}
	s.left--
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		start := time.Now()
		detail, err := s.inject(ctx, st)
		ev := history.FaultEvent{
			Run: s.o.Scenario.Name, Fault: s.o.Scenario.Fault, Proc: st.Proc, Goroutine: st.Goroutine,
			RequestID: st.RequestID, Start: start.UnixNano(), End: time.Now().UnixNano(), Detail: detail,
		}
		if err != nil {
			ev.Detail, ev.Failed = fmt.Sprintf("%s on %s", s.o.Scenario.Fault, st.RequestID), err.Error()
		}
		s.mu.Lock()
		s.events = append(s.events, ev)
		s.mu.Unlock()
	}()
}

// inject does the fault and says in words what it did.
func (s *striker) inject(ctx context.Context, st strike) (string, error) {
	w := s.fleet.ws[st.Proc]
	pid := w.cmd.Process.Pid
	switch s.o.Scenario.Fault {
	case scenarios.PauseStop:
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			return "", err
		}
		sleep(ctx, s.o.PauseFor) // cut short when the race is interrupted
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			return "", err
		}
		s.fleet.resume(st.Proc, st.Key)
		return fmt.Sprintf("SIGSTOP of worker %d (pid %d) between its read and its write, SIGCONT %s later", st.Proc, pid, s.o.PauseFor), nil
	case scenarios.Crash:
		w.crashed.Store(true)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return "", err
		}
		return fmt.Sprintf("SIGKILL of worker %d (pid %d) in the middle of its sale", st.Proc, pid), nil
	case scenarios.LockLoss, scenarios.Failover:
		how, err := s.loseLock(ctx)
		if err != nil {
			s.fleet.resume(st.Proc, st.Key)
			return "", err
		}
		taken := s.awaitNewHolder(ctx)
		s.fleet.resume(st.Proc, st.Key)
		return fmt.Sprintf("%s while %s held it; %s", how, st.RequestID, taken), nil
	}
	s.fleet.resume(st.Proc, st.Key)
	return "", fmt.Errorf("fault %q has no coordinator action", s.o.Scenario.Fault)
}

// loseLock makes the lock key vanish: a real Redis restart when the stack
// is hammer's own, else the deletion of hammer's own lock key only.
func (s *striker) loseLock(ctx context.Context) (string, error) {
	if s.failover != nil {
		return s.failover.fail(ctx)
	}
	if s.o.Managed != nil {
		if err := s.o.Managed.RestartRedis(ctx); err != nil {
			return "", fmt.Errorf("restart redis: %w", err)
		}
		return "Redis restarted without persistence (every key lost)", nil
	}
	rdb, err := s.redis(s.o.RedisURL)
	if err != nil {
		return "", err
	}
	defer rdb.Close()
	if err := rdb.Del(ctx, s.lockKey).Err(); err != nil {
		return "", err
	}
	return "the lock key was deleted (emulating a restart or failover of an external Redis)", nil
}

// awaitNewHolder waits until another contender holds the lost lock, so the
// resumed holder and the new one overlap.
func (s *striker) awaitNewHolder(ctx context.Context) string {
	rdb, err := s.redis(s.watchURL)
	if err != nil {
		return "could not watch the lock: " + err.Error()
	}
	defer rdb.Close()
	locker := redislock.New(rdb, redislock.DefaultBackoff())
	deadline := time.Now().Add(10 * s.o.LockTTL)
	for time.Now().Before(deadline) {
		if h, err := locker.Holder(ctx, s.lockKey); err == nil && h != "" {
			// Let the new holder read before the old one writes.
			sleep(ctx, 20*time.Millisecond)
			return "another contender took the lock, then the old holder went on"
		}
		if !sleep(ctx, time.Millisecond) {
			break
		}
	}
	return "nobody took the lock before the old holder went on"
}

func (s *striker) redis(rawURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
}

// sleep waits for d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// finish waits for strikes in progress and returns the fault events.
func (s *striker) finish() []history.FaultEvent {
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events
}

// resume tells worker proc that the attempt key may go on.
func (f *fleet) resume(proc int, key string) {
	w := f.ws[proc]
	w.stdinMu.Lock()
	defer w.stdinMu.Unlock()
	// A worker that cannot read has died; the collector notices.
	_ = json.NewEncoder(w.stdin).Encode(control{Resume: key})
}
