package driver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/driver"
)

// TestWorkerWaitsAtFinishLine runs a worker of the canned contender in this
// process: once its attempts have ended it says finished and sends nothing
// more — no histograms, no done — until the coordinator says wrap, or its
// stdin closes (the coordinator gone).
func TestWorkerWaitsAtFinishLine(t *testing.T) {
	for _, how := range []string{"wrap", "stdin closed"} {
		t.Run(how, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			code := make(chan int, 1)
			go func() {
				code <- driver.WorkerMain(context.Background(), inR, outW, driver.Kit{Contenders: contenders()})
				outW.Close()
			}()
			lines := make(chan map[string]any)
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					var m map[string]any
					if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
						t.Errorf("worker wrote %q: %v", sc.Text(), err)
						return
					}
					lines <- m
				}
			}()
			next := func() map[string]any {
				t.Helper()
				select {
				case m, ok := <-lines:
					if !ok {
						t.Fatal("worker output ended")
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
			for m := next(); m["finished"] != true; m = next() {
				if m["done"] == true || m["histograms"] != nil {
					t.Fatalf("worker sent %v before it said finished", m)
				}
			}
			select {
			case m := <-lines:
				t.Fatalf("worker sent %v after finished, before it was told to wrap up", m)
			case <-time.After(200 * time.Millisecond):
			}
			if how == "wrap" {
				write(`{"wrap":true}`)
			} else {
				inW.Close()
			}
			var attempts int
			for m := next(); m["done"] != true; m = next() {
				if m["attempt"] != nil {
					attempts++
				}
			}
			if attempts != 6 {
				t.Errorf("%d attempt records after the wrap, want 6 (held until then)", attempts)
			}
			if c := <-code; c != 0 {
				t.Errorf("WorkerMain = %d, want 0", c)
			}
			inW.Close()
		})
	}
}
