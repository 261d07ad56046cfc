package agent

import "time"

// Clock is an agent's clock against the coordinator's, estimated from an
// exchange of pings the way NTP does: Offset is the agent's clock minus
// the coordinator's, true to within ±Uncertainty (half the round trip of
// the best ping: the exchange cannot tell how that round trip split
// between the two directions).
type Clock struct {
	Offset      time.Duration
	Uncertainty time.Duration
	RTT         time.Duration
	// Pings is how many exchanges the estimate took the best of.
	Pings int
}

// sample is one ping: t1 sent and t4 answered on the coordinator's clock,
// t2 received and t3 answered on the agent's.
type sample struct{ t1, t2, t3, t4 int64 }

// rtt is the sample's round trip without the agent's own time.
func (s sample) rtt() int64 { return (s.t4 - s.t1) - (s.t3 - s.t2) }

// offset is the sample's estimate of agent minus coordinator.
func (s sample) offset() int64 { return ((s.t2 - s.t1) + (s.t3 - s.t4)) / 2 }

// estimate keeps the sample with the shortest round trip: queueing only
// ever adds delay, and the less of it, the tighter the bound.
func estimate(samples []sample) Clock {
	if len(samples) == 0 {
		return Clock{}
	}
	best := samples[0]
	for _, s := range samples[1:] {
		if s.rtt() < best.rtt() {
			best = s
		}
	}
	rtt := max(best.rtt(), 0)
	return Clock{Offset: time.Duration(best.offset()), Uncertainty: time.Duration(rtt / 2), RTT: time.Duration(rtt), Pings: len(samples)}
}
