package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopSignals end a command the way Ctrl-C does: an interrupt, a
// termination request, and the hang-up of a terminal that was closed.
func stopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }

// oneStop is how soon after a stop signal another one is the same request:
// timeout(1) sends its signal to hammer and then to hammer's process group,
// so hammer gets it twice within microseconds, and a supervisor may do the
// same. A person pressing Ctrl-C twice is slower than this.
const oneStop = 100 * time.Millisecond

// withSignals returns a context that ends at the first stop signal, so the
// command stops its race, cleans up and saves what it has (exit 3, runs
// marked interrupted). A second signal, oneStop or more after the first,
// calls exit(exitInfra) at once, saying so on w: whoever sends it wants
// hammer gone now, and servers hammer started die with it. stop restores
// the default handling.
func withSignals(parent context.Context, w io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals()...)
	done := make(chan struct{})
	go func() {
		var first time.Time
		select {
		case sig := <-sigs:
			first = time.Now()
			fmt.Fprintf(w, "hammer: %s: stopping the race and saving what it has; another one exits at once\n", sig)
			cancel()
		case <-done:
			return
		}
		for {
			select {
			case sig := <-sigs:
				if time.Since(first) < oneStop {
					continue // the same request, delivered twice
				}
				fmt.Fprintf(w, "hammer: %s again: exiting at once, without cleaning up\n", sig)
				exit(exitInfra)
			case <-done:
			}
			return
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
