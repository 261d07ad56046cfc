package driver

import (
	"context"
	"time"

	"github.com/hammer-load/hammer/internal/seatdb"
)

// commitProbes is how many serial commits measure the commit latency of a
// race's PostgreSQL (an odd number, so the median is one of them).
const commitProbes = 21

// commitProbeTimeout bounds the measurement: a server that cannot commit
// 21 rows in it leaves the run without a floor, not hanging.
const commitProbeTimeout = 10 * time.Second

// measureCommit measures the commit latency of the race's PostgreSQL in
// its schema, before the race (see seatdb.CommitLatency): the report's
// physical floor is the seats times it. A measurement that failed costs
// the run its floor, not its race, and comes back as a warning.
func measureCommit(ctx context.Context, o Options, schema string) (time.Duration, []string) {
	ctx, cancel := context.WithTimeout(ctx, commitProbeTimeout)
	defer cancel()
	d, err := seatdb.CommitLatency(ctx, o.PGURL, schema, commitProbes)
	if err != nil {
		return 0, []string{"no physical floor for this run: " + err.Error()}
	}
	return d, nil
}
