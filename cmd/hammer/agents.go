package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/target"
)

// agentFlags are the flags of run, load and gate that race on agents.
type agentFlags struct {
	n           int    // agents to wait for; 0 races child processes
	listen      string // where agents join
	joinTimeout time.Duration
	tokenFlags
	token string // the token resolved
}

func (a *agentFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&a.n, "agents", 0, "race on `N` agents (hammer agent --join) instead of local worker processes, one worker on each")
	fs.StringVar(&a.listen, "listen", "127.0.0.1:7070", "`host:port` where agents join; loopback unless a host is named (0.0.0.0: every interface)")
	fs.DurationVar(&a.joinTimeout, "join-timeout", 2*time.Minute, "how long to wait for the agents to join")
	a.tokenFlags.register(fs)
}

// check validates the agent flags against the others, taking the token
// from the environment when not given; with agents, each is one worker.
func (a *agentFlags) check(fs *flag.FlagSet, f *raceFlags) error {
	switch {
	case a.n < 1 && isSet(fs, "agents"):
		return fmt.Errorf("--agents must be at least 1, got %d (leave it out to race local worker processes)", a.n)
	case a.n == 0:
		for _, name := range []string{"listen", "join-timeout", "token", "token-file"} {
			if isSet(fs, name) {
				return fmt.Errorf("--%s goes with --agents", name)
			}
		}
		return nil
	case isSet(fs, "procs"):
		return fmt.Errorf("--agents %d runs one worker on each agent: drop --procs", a.n)
	case a.joinTimeout <= 0:
		return fmt.Errorf("--join-timeout must be positive, got %s", a.joinTimeout)
	}
	if err := checkHostPort(a.listen, false, 0); err != nil {
		return fmt.Errorf("--listen: %v", err)
	}
	if a.relayHost() != "" {
		if err := a.checkElsewhere(f); err != nil {
			return err
		}
	}
	token, err := a.tokenFlags.resolve(fs)
	if err != nil {
		return err
	}
	if err := agent.CheckToken(token); err != nil {
		return fmt.Errorf("--agents needs a shared token in --token-file, $%s or --token: %v", envToken, err)
	}
	a.token = token
	f.procs = a.n
	return nil
}

// relayHost is the --listen host when agents may join from other hosts
// (it is not loopback): a service's replicas are relayed there for them.
// "" when every agent is on this host.
func (a *agentFlags) relayHost() string {
	host, _, _ := net.SplitHostPort(a.listen)
	if a.n == 0 || host == "" || agent.Loopback(host) {
		return ""
	}
	return host
}

// relay has a service's replicas relayed on the --listen host for the
// agents that joined, when they may be on other hosts.
func (a *agentFlags) relay(b driver.Backend, agents []*agent.Agent) {
	tb, ok := b.(*target.Backend)
	host := a.relayHost()
	if !ok || host == "" {
		return
	}
	var from []netip.Addr
	for _, ag := range agents {
		if ap, err := netip.ParseAddrPort(ag.Addr); err == nil {
			from = append(from, ap.Addr().Unmap())
		}
	}
	tb.RelayOn(host, from)
}

// checkElsewhere refuses what agents on other hosts could not reach: the
// workers of hammer's own strategies reach the servers, the workers of a
// --target service only its replicas (those hammer starts are relayed on
// the --listen host; those the file lists in urls: must be reachable).
func (a *agentFlags) checkElsewhere(f *raceFlags) error {
	t := f.target.file
	if t == nil {
		if !f.external() {
			return fmt.Errorf("--listen %s lets agents join from other hosts, but the %s stack's servers listen on this host's loopback: use --stack external with addresses the agents reach",
				a.listen, f.stackKind)
		}
		return nil
	}
	for _, raw := range t.URLs {
		if u, err := url.Parse(raw); err == nil && agent.Loopback(u.Hostname()) {
			return fmt.Errorf("--listen %s lets agents join from other hosts, but %s lists urls: on %s, this host's loopback, which they cannot reach: list addresses the agents reach, or keep --listen on loopback for agents on this host",
				a.listen, f.target.path, u.Hostname())
		}
	}
	return nil
}

// checkPort tries --listen before anything starts, so that a port in use
// is refused (exit 2) with nothing to clean up, and lets it go at once:
// held until the join, it would take agents that come early into its
// backlog, where their handshake times out, instead of refusing them
// until it listens (they dial again until --join-timeout).
func (a *agentFlags) checkPort(cmd string, io stdio) int {
	if err := agent.CheckAddr(a.listen); err != nil {
		return usageError(io, cmd, "--listen: %v", err)
	}
	return exitOK
}

// join waits for the agents, saying where they can join (also when
// quiet, which leaves out each agent's joining); on failure it says why
// and returns the exit code.
func (a *agentFlags) join(ctx context.Context, cmd string, quiet bool, io stdio) ([]*agent.Agent, int) {
	ln, err := agent.Listen(agent.ListenOptions{Addr: a.listen, Token: a.token, Version: hammerVersion(), Log: io.err, Quiet: quiet})
	if err != nil {
		return nil, usageError(io, cmd, "--listen: %v", err)
	}
	a.warn(cmd, io)
	fmt.Fprintf(io.err, "hammer: waiting for %s on %s (--join-timeout %s)\n", plural(a.n, "1 agent", fmt.Sprintf("%d agents", a.n)), ln.Addr(), a.joinTimeout)
	agents, err := ln.Accept(ctx, a.n, a.joinTimeout)
	if err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return nil, exitInfra
	}
	return agents, exitOK
}

// checkReach refuses servers agents on other hosts could not reach: the
// URLs handed to them name a loopback address.
func checkReach(agents []*agent.Agent, urls ...string) error {
	for _, a := range agents {
		if !a.Remote() {
			continue
		}
		for _, u := range urls {
			if p, err := url.Parse(u); err == nil && agent.Loopback(p.Hostname()) {
				return fmt.Errorf("%s joined from another host, but the servers listen on %s, its loopback: use --stack external with addresses the agents reach", a.Name(), p.Hostname())
			}
		}
	}
	return nil
}

// closeAgents ends the agents' session: each exits once told.
func closeAgents(agents []*agent.Agent) {
	for _, a := range agents {
		a.Close()
	}
}

// agentCmd is `hammer agent`: a worker host that joins a coordinator.
func agentCmd(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer agent", flag.ContinueOnError)
	join := fs.String("join", "", "coordinator `host:port` to join (its --listen)")
	index := fs.String("index", "", "`index` to ask for (default $JOB_COMPLETION_INDEX when set, else the coordinator gives one)")
	timeout := fs.Duration("join-timeout", 2*time.Minute, "how long to keep dialling a coordinator that does not answer yet")
	var tf tokenFlags
	tf.register(fs)
	offset := fs.Duration("clock-offset", 0, "tests only: play a host whose clock reads this much ahead")
	if code, ok := parse(fs, args, io); !ok {
		return code
	}
	o := agent.JoinOptions{Addr: *join, Version: hammerVersion(), Host: agent.Hostname(),
		Timeout: *timeout, ClockOffset: *offset, Log: io.err}
	if err := agentIndex(fs, *index, &o); err != nil {
		return usageError(io, "agent", "%v", err)
	}
	switch {
	case fs.NArg() > 0:
		return usageError(io, "agent", "unexpected argument %q", fs.Arg(0))
	case *join == "":
		return usageError(io, "agent", "--join host:port is required")
	case checkHostPort(*join, true, 1) != nil:
		return usageError(io, "agent", "--join: %v", checkHostPort(*join, true, 1))
	case *timeout <= 0:
		return usageError(io, "agent", "--join-timeout must be positive, got %s", *timeout)
	}
	token, err := tf.resolve(fs)
	if err == nil {
		err = agent.CheckToken(token)
	}
	if err != nil {
		return usageError(io, "agent", "a shared token from --token-file, $%s or --token: %v", envToken, err)
	}
	o.Token = token
	tf.warn("agent", io)
	exe, err := workerExecutable()
	if err != nil {
		fmt.Fprintf(io.err, "hammer agent: %v\n", err)
		return exitInfra
	}
	o.Worker = []string{exe, workerCommand}
	if *offset != 0 {
		o.Worker = append(o.Worker, "--clock-offset", offset.String())
	}
	switch err := agent.Join(ctx, o); {
	case err == nil:
		fmt.Fprintln(io.err, "hammer agent: the coordinator ended the session")
		return exitOK
	case errors.Is(err, agent.ErrRefused):
		return usageError(io, "agent", "%v", err)
	default:
		fmt.Fprintf(io.err, "hammer agent: %v\n", err)
		return exitInfra
	}
}

// agentIndex sets the index the agent asks for: --index, else a
// Kubernetes Indexed Job's completion index.
func agentIndex(fs *flag.FlagSet, arg string, o *agent.JoinOptions) error {
	from := "--index"
	if !isSet(fs, "index") {
		from, arg = "$JOB_COMPLETION_INDEX", os.Getenv("JOB_COMPLETION_INDEX")
		if arg == "" {
			return nil
		}
	}
	index, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil || index < 0 {
		return fmt.Errorf("%s must be an index, 0 or more, got %q", from, arg)
	}
	o.Index = &index
	return nil
}
