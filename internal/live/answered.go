package live

import (
	"sync"
	"time"
)

// inFlightLag is how far back a race's attempts in flight are counted:
// a worker sends its records about once a second, so only then are the
// answers given before that instant all in. What is in flight now cannot
// be known before then; counting it as "due and not yet reported" would
// add a second's worth of answered attempts.
const inFlightLag = 1250 * time.Millisecond

// answerBucket is the resolution at which answers are counted.
const answerBucket = 10 * time.Millisecond

// answered counts a race's answers by when they were given, in buckets
// of answerBucket from the go signal, so that how many were given by an
// instant can be read whatever order their records arrived in. The
// instants read only move forward: the buckets before the last one read
// are folded into a sum, so only the lag's worth are kept.
type answered struct {
	mu      sync.Mutex
	base    int     // the index of buckets[0]
	buckets []int64 // answers per bucket from base on
	sum     int64   // answers in the buckets before base
}

// add counts one answer given at (ns after the go signal).
func (a *answered) add(at int64) {
	i := max(0, int(at/int64(answerBucket)))
	a.mu.Lock()
	defer a.mu.Unlock()
	if i < a.base {
		a.sum++ // late: its instant was read already
		return
	}
	i -= a.base
	if i >= len(a.buckets) {
		a.buckets = append(a.buckets, make([]int64, i+1-len(a.buckets))...)
	}
	a.buckets[i]++
}

// by is how many answers were given by d after the go signal (by the
// latest d asked for, if that was later).
func (a *answered) by(d time.Duration) int64 {
	upto := int(d/answerBucket) + 1 // buckets [0, upto) are in
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := min(upto-a.base, len(a.buckets)); n > 0 {
		for _, c := range a.buckets[:n] {
			a.sum += c
		}
		a.buckets = append(a.buckets[:0], a.buckets[n:]...)
	}
	a.base = max(a.base, upto)
	return a.sum
}
