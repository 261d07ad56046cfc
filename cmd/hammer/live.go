package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/live"
	"github.com/hammer-load/hammer/report"
)

// liveFlags is --live of run, load and gate.
type liveFlags struct {
	arg string // as given
	// addr is arg as a host:port to listen on, loopback for a bare port.
	addr string
	// public is set when addr's host is not a loopback one.
	public bool
}

// register defines --live on fs.
func (l *liveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.arg, "live", "", "serve a live page of the race, its events and Prometheus /metrics on `ADDR`: "+
		"a port (8080, :8080) listens on 127.0.0.1; name a host to listen elsewhere (0.0.0.0:8080: every interface)")
}

// check makes --live a host:port to listen on, or says why it cannot be.
func (l *liveFlags) check() error {
	if l.arg == "" {
		return nil
	}
	addr := l.arg
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	if err := checkHostPort(addr, true, 0); err != nil {
		return fmt.Errorf("--live: %v", err)
	}
	host, _, _ := net.SplitHostPort(addr)
	l.addr, l.public = addr, !agent.Loopback(host)
	return nil
}

// liveRun is the live page of one command's races: nil when --live is off.
type liveRun struct {
	hub    *live.Hub
	feed   *live.Feed
	srv    *live.Server
	dir    string
	public bool
}

// start listens on --live before anything else starts, says where, and
// serves; a port that cannot be had is the user's to fix (exit 2).
func (l *liveFlags) start(cmd, runID, dir string, io stdio) (*liveRun, int) {
	if l.addr == "" {
		return nil, exitOK
	}
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		return nil, usageError(io, cmd, "--live: %v", listenCause(l.addr, err))
	}
	var hub *live.Hub
	metrics := live.NewMetrics(func() int { return hub.Clients() })
	hub = live.NewHub(live.DefaultBuffer, metrics.Dropped)
	hub.SetHello(live.Hello(cmd, runID, hub.Buffer()))
	lr := &liveRun{hub: hub, dir: dir, public: l.public,
		feed: live.NewFeed(live.FeedOptions{Hub: hub, Metrics: metrics, Redact: io.secrets.String}),
		srv:  live.NewServer(live.ServerOptions{Listener: ln, Hub: hub, Metrics: metrics, Dir: dir, AnyHost: l.public})}
	lr.srv.Start()
	if l.public {
		fmt.Fprintf(io.err, "hammer: warning: --live %s is reachable from other hosts: whoever reaches the port sees the race and its metrics\n", l.arg)
	}
	fmt.Fprintf(io.err, "hammer: live page on %s (Prometheus metrics on %smetrics)\n", lr.srv.URL(), lr.srv.URL())
	return lr, exitOK
}

// listenCause is why listening on addr failed, in a few words: "cannot
// listen on 127.0.0.1:8080: address already in use" rather than the
// syscall chain (a host name that does not resolve has no address in it).
func listenCause(addr string, err error) string {
	var op *net.OpError
	if !errors.As(err, &op) || op.Err == nil {
		return err.Error()
	}
	cause := op.Err
	var sys *os.SyscallError
	if errors.As(cause, &sys) {
		cause = sys.Err
	}
	return fmt.Sprintf("cannot listen on %s: %v", addr, cause)
}

// track is the live feed's Track, nil when --live is off.
func (lr *liveRun) track() func(driver.Options) driver.Hooks {
	if lr == nil {
		return nil
	}
	return lr.feed.Track
}

// verdict sends the races' verdicts and a link to the report, then ends
// the page's stream and closes the server after its grace.
func (lr *liveRun) verdict(s report.Summary) {
	if lr == nil {
		return
	}
	ev := live.VerdictEvent{ExitCode: s.ExitCode, Report: lr.srv.Report(), Folder: lr.dir}
	for _, r := range s.Runs {
		v := live.RunVerdict{Run: r.Name, Verdict: string(r.Verdict), Expected: string(r.Expected),
			Seats: r.Seats, Sold: r.Sold, Oversold: r.Oversold, Violations: len(r.Violations)}
		if r.Expected != "" {
			v.ExpectOK = &r.ExpectOK
		}
		if len(r.Violations) > 0 {
			v.First = r.Violations[0].Check + ": " + r.Violations[0].Detail
		}
		ev.Runs = append(ev.Runs, v)
	}
	lr.feed.Verdict(ev)
	lr.end("done")
}

// end ends every stream, saying why; it does nothing the second time.
func (lr *liveRun) end(why string) {
	if lr == nil {
		return
	}
	lr.feed.End(why, live.DefaultGrace)
}

// close closes the server once the browsers left, after its grace at
// most.
func (lr *liveRun) close() {
	if lr == nil {
		return
	}
	lr.srv.Close()
}
