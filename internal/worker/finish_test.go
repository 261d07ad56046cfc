package worker_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/worker"
)

// TestWorkerWaitsAtFinishLine runs a worker of the canned contender in this
// process: once its attempts have ended it says finished and sends nothing
// more — no records, no histograms, no done — until the coordinator says
// wrap, asks for its records (a stopped race) or goes away (its stdin
// closes). The race is over well within the second after which a worker
// sends what it holds anyway.
func TestWorkerWaitsAtFinishLine(t *testing.T) {
	for _, how := range []string{"wrap", "ship", "stdin closed"} {
		t.Run(how, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			code := make(chan int, 1)
			go func() {
				code <- worker.Main(context.Background(), inR, outW, worker.Kit{Contenders: contenders()})
				outW.Close()
			}()
			lines, quit := make(chan map[string]any), make(chan struct{})
			t.Cleanup(func() { close(quit); inW.Close(); outR.Close() })
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					var m map[string]any
					if json.Unmarshal(sc.Bytes(), &m) != nil {
						m = map[string]any{"bad line": sc.Text()}
					}
					select {
					case lines <- m:
					case <-quit:
						return
					}
				}
			}()
			next := func() map[string]any {
				t.Helper()
				select {
				case m, ok := <-lines:
					if !ok {
						t.Fatal("worker output ended")
					}
					if m["bad line"] != nil {
						t.Fatalf("worker wrote %q", m["bad line"])
					}
					return m
				case <-time.After(10 * time.Second):
					t.Fatal("no message from the worker in 10s")
				}
				return nil
			}
			write := func(line string) {
				t.Helper()
				if _, err := io.WriteString(inW, line+"\n"); err != nil {
					t.Fatalf("write %s: %v", line, err)
				}
			}
			write(`{"run":"finish","mode":"update-only","proc":0,"goroutines":3,"attempts":2,"contender":"canned","contender_config":{"outcome":"sold_out"}}`)
			if m := next(); m["ready"] != true {
				t.Fatalf("first message %v, want ready", m)
			}
			write(fmt.Sprintf(`{"go_ns":%d}`, time.Now().Add(10*time.Millisecond).UnixNano()))
			if m := next(); m["finished"] != true {
				t.Fatalf("worker sent %v before it said finished", m)
			}
			select {
			case m := <-lines:
				t.Fatalf("worker sent %v after finished, before it was told to wrap up", m)
			case <-time.After(200 * time.Millisecond):
			}
			switch how {
			case "wrap":
				write(`{"wrap":true}`)
			case "ship":
				write(`{"ship":true}`)
			default:
				inW.Close()
			}
			var attempts int
			shipped := how != "ship"
			for m := next(); m["done"] != true; m = next() {
				switch {
				case m["attempt"] != nil:
					attempts++
				case m["shipped"] == true:
					shipped = attempts == 6
				}
			}
			if attempts != 6 || !shipped {
				t.Errorf("%d attempt records after the %s (shipped after all of them: %v), want 6", attempts, how, shipped)
			}
			if c := <-code; c != 0 {
				t.Errorf("Main = %d, want 0", c)
			}
		})
	}
}

// contenders are the contender kinds this test binary offers its worker.
func contenders() map[string]worker.Connect {
	return map[string]worker.Connect{"canned": connectCanned}
}

// canned is a contender that answers every attempt with the outcome its
// settings name, without touching any server.
type canned struct{ outcome history.Outcome }

func connectCanned(_ context.Context, s worker.Session) (worker.Contender, func(), error) {
	var cfg struct {
		Outcome history.Outcome `json:"outcome"`
	}
	if err := json.Unmarshal(s.Config, &cfg); err != nil {
		return nil, nil, err
	}
	return canned{outcome: cfg.Outcome}, func() {}, nil
}

func (canned) Warm(context.Context) error { return nil }

func (c canned) Attempt(_ context.Context, a *history.Attempt, _ *rand.Rand) {
	a.Invoke = time.Now().UnixNano()
	a.Outcome = c.outcome
	a.Complete = time.Now().UnixNano()
}
