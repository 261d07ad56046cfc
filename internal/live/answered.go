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
//
// It also keeps the race's whole timeline, answers and sales per bucket,
// for the exact curve sent when the race ended (Curve).
type answered struct {
	mu      sync.Mutex
	base    int           // the index of buckets[0]
	buckets []int64       // answers per bucket from base on
	sum     int64         // answers in the buckets before base
	res     time.Duration // the timeline's bucket width (firstRes, doubled as needed)
	all     []int32       // answers per bucket of res from the go signal on
	sold    []int32       // sales per bucket of res from the go signal on
}

// The timeline starts at 1 ms buckets, so that a race of a few tens of
// milliseconds still has a shape, and doubles their width whenever it
// would hold more than maxTimeline (512 KiB): 65 s at 1 ms, 18 h at 1 s.
const (
	firstRes    = time.Millisecond
	maxTimeline = 1 << 16
)

// add counts one answer given at (ns after the go signal), a sale if sold.
func (a *answered) add(at int64, sold bool) {
	i := max(0, int(at/int64(answerBucket)))
	a.mu.Lock()
	defer a.mu.Unlock()
	a.timeline(max(0, at), sold)
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

// timeline counts one answer at (ns after the go signal) in the
// timeline, widening its buckets as needed; a.mu is held.
func (a *answered) timeline(at int64, sold bool) {
	if a.res == 0 {
		a.res = firstRes
	}
	t := int(at / int64(a.res))
	for t >= maxTimeline {
		for j := 0; j < len(a.all); j += 2 { // merge pairs: half as many, twice as wide
			k := j / 2
			a.all[k], a.sold[k] = a.all[j], a.sold[j]
			if j+1 < len(a.all) {
				a.all[k] += a.all[j+1]
				a.sold[k] += a.sold[j+1]
			}
		}
		n := (len(a.all) + 1) / 2
		a.all, a.sold = a.all[:n], a.sold[:n]
		a.res *= 2
		t = int(at / int64(a.res))
	}
	if t >= len(a.all) {
		a.all = append(a.all, make([]int32, t+1-len(a.all))...)
		a.sold = append(a.sold, make([]int32, t+1-len(a.sold))...)
	}
	a.all[t]++
	if sold {
		a.sold[t]++
	}
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

// maxCurvePoints is the most points a race's curve is sent with.
const maxCurvePoints = 500

// curve is the race's cumulative answers and sales by when they were
// given, in at most maxCurvePoints steps of whole buckets.
func (a *answered) curve(run string) CurveEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	step := max(1, (len(a.all)+maxCurvePoints-1)/maxCurvePoints)
	ev := CurveEvent{Run: run, T: []float64{0}, Answered: []int64{0}, Sold: []int64{0}}
	var all, sold int64
	for i := range a.all {
		all += int64(a.all[i])
		sold += int64(a.sold[i])
		if (i+1)%step == 0 || i == len(a.all)-1 {
			ev.T = append(ev.T, (time.Duration(i+1) * a.res).Seconds())
			ev.Answered = append(ev.Answered, all)
			ev.Sold = append(ev.Sold, sold)
		}
	}
	return ev
}
