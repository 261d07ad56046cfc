package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/spans"
)

// otlpFlags is --otlp of run, load and gate.
type otlpFlags struct {
	arg string // as given
	// endpoint is the URL the spans are posted to, once checked.
	endpoint string
}

// register defines --otlp on fs.
func (o *otlpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.arg, "otlp", "", "with --target: after the race, export every request to the service as an OpenTelemetry span "+
		"(the trace and span ids of its traceparent) over OTLP/HTTP to `URL`, such as http://127.0.0.1:4318 (/v1/traces is added to a URL without a path)")
}

// check makes --otlp the URL to post to, or says why it cannot be.
func (o *otlpFlags) check(target bool) error {
	if o.arg == "" {
		return nil
	}
	if !target {
		return errors.New("--otlp goes with --target: only requests to a service carry a trace")
	}
	u, err := spans.ParseEndpoint(o.arg)
	if err != nil {
		return fmt.Errorf("--otlp: %v", err)
	}
	o.endpoint = u
	return nil
}

// export sends the spans of raw's attempts to the collector, when --otlp
// names one. A collector that fails is warned about: the verdict does
// not depend on it.
func (o *otlpFlags) export(ctx context.Context, cmd string, raw *history.Log, quiet bool, io stdio) {
	if o.endpoint == "" {
		return
	}
	n, err := spans.Export(ctx, o.endpoint, raw)
	switch {
	case err != nil:
		fmt.Fprintf(io.err, "hammer %s: warning: --otlp: %d spans exported to %s, then: %s; the verdict does not depend on it\n",
			cmd, n, o.endpoint, strings.Join(strings.Fields(err.Error()), " "))
	case !quiet:
		fmt.Fprintf(io.err, "hammer %s: --otlp: %d spans exported to %s\n", cmd, n, o.endpoint)
	}
}
