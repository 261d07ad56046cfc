package strategy

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// TestHeartbeat checks what the heartbeat records: Extended is the stamp
// of the last extension that kept the lock, ExtendFailed that of the first
// that did not; it stops once the lock is lost, waits while the world is
// paused, and never touches the outcome. Extensions tick every millisecond;
// the sale waits for as many as the case needs.
func TestHeartbeat(t *testing.T) {
	ok := func(int) (bool, error) { return true, nil }
	tests := []struct {
		name      string
		every     time.Duration
		extend    func(n int) (bool, error) // answer to the n-th Extend
		wait      int                       // extensions the sale waits for
		paused    bool                      // World is held for writing until the sale ends
		wantCalls int                       // Extend calls; -1: at least wait
	}{
		{name: "off", extend: ok, wantCalls: 0},
		{name: "extends", every: time.Millisecond, extend: ok, wait: 2, wantCalls: -1},
		{name: "lost: stops", every: time.Millisecond, extend: func(int) (bool, error) { return false, nil }, wait: 1, wantCalls: 1},
		{name: "error, then extends", every: time.Millisecond, wait: 2, wantCalls: -1,
			extend: func(n int) (bool, error) { return n > 1, map[bool]error{true: reset}[n == 1] }},
		{name: "extends, then errors: keeps trying", every: time.Millisecond, wait: 3, wantCalls: -1,
			extend: func(n int) (bool, error) { return n == 1, map[bool]error{true: reset}[n > 1] }},
		{name: "paused world", every: time.Millisecond, extend: ok, paused: true, wantCalls: -1},
	}
	for _, tt := range tests {
		for _, mode := range lockModes {
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				l, world := &fakeLock{extend: tt.extend}, &sync.RWMutex{}
				s := &fakeSell{during: func(context.Context) {
					for deadline := time.Now().Add(5 * time.Second); len(l.extendLog()) < tt.wait && time.Now().Before(deadline); {
						time.Sleep(100 * time.Microsecond)
					}
					time.Sleep(3 * tt.every) // room for extensions that should not happen
					if tt.paused {
						if n := len(l.extendLog()); n != 0 {
							t.Errorf("Extend called %d times while paused, want 0", n)
						}
						world.Unlock()
					}
				}}
				if tt.paused {
					world.Lock()
				}
				a := &history.Attempt{RequestID: "r"}
				c := &Contender{Mode: mode, Lock: l, Sell: s.sell, ExtendEvery: tt.every, World: world}
				c.Attempt(context.Background(), a, nil)

				log := l.extendLog()
				if n := len(log); tt.wantCalls >= 0 && n != tt.wantCalls || tt.wantCalls < 0 && n < tt.wait {
					t.Errorf("Extend called %d times, want %d (at least %d)", n, tt.wantCalls, tt.wait)
				}
				lastOK, firstFail := -1, slices.IndexFunc(log, func(c extendCall) bool { return !c.ok })
				for i, c := range log {
					if c.ok {
						lastOK = i
					}
				}
				// The stamp of call i is taken after call i-1 and before call i reaches the lock.
				check := func(what string, ns int64, i int) {
					if i < 0 && ns != 0 || i >= 0 && (ns > log[i].at || ns < a.LockAcquired || i > 0 && ns < log[i-1].at) {
						t.Errorf("%s = %d, want the stamp of Extend call %d of %v (0 if none)", what, ns, i, log)
					}
				}
				check("Extended", a.Extended, lastOK)
				check("ExtendFailed", a.ExtendFailed, firstFail)
				if a.Outcome != history.Sold || a.Err != "" || a.LockLost || a.LockReleased < max(a.Extended, a.ExtendFailed) {
					t.Errorf("outcome, err, lost, released = %s, %q, %v, %d; want sold, \"\", false, after the heartbeat", a.Outcome, a.Err, a.LockLost, a.LockReleased)
				}
			})
		}
	}
}

// TestNew checks how New wires each mode's lock and heartbeat. Which of
// Store's sales a mode gets, and RedisLock itself, can only be seen against
// real PostgreSQL and Redis; the driver's tests cover them.
func TestNew(t *testing.T) {
	tests := []struct {
		name      string
		mode      scenarios.Mode
		extend    bool
		wantFence string // "-": no lock
		wantEvery time.Duration
	}{
		{name: "none", mode: scenarios.None, extend: true, wantFence: "-"},
		{name: "update-only", mode: scenarios.UpdateOnly, extend: true, wantFence: "-"},
		{name: "lock-only", mode: scenarios.LockOnly},
		{name: "lock-plus-update, extended", mode: scenarios.LockPlusUpdate, extend: true, wantEvery: 30 * time.Millisecond},
		{name: "fenced", mode: scenarios.Fenced, wantFence: "fence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ttl := &fakeFaults{}, 90*time.Millisecond
			c := New(tt.mode, Deps{Sector: 4, LockKey: "lock", FenceKey: "fence", LockTTL: ttl, LockWait: time.Second, Extend: tt.extend, Faults: f})
			want := RedisLock{Key: "lock", FenceKey: tt.wantFence, TTL: ttl, Wait: time.Second}
			if l, _ := c.Lock.(*RedisLock); tt.wantFence == "-" && c.Lock != nil || tt.wantFence != "-" && (l == nil || *l != want) {
				t.Errorf("lock = %+v, want %+v (fence %q)", c.Lock, want, tt.wantFence)
			}
			if c.ExtendEvery != tt.wantEvery || c.Sell == nil || c.Sector != 4 || c.Faults != f || c.Mode != tt.mode {
				t.Errorf("every, sell set, sector, faults passed, mode = %v, %v, %d, %v, %s; want %v, true, 4, true, %s",
					c.ExtendEvery, c.Sell != nil, c.Sector, c.Faults == f, c.Mode, tt.wantEvery, tt.mode)
			}
		})
	}
}
