package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/hammer-load/hammer/history"
)

// mergeGap is how close, in SVG units, two holdings of one replica are
// drawn as one bar, so that a run of thousands of holders keeps the page
// small: at most a few hundred bars a lane.
const mergeGap = 1.0

// holderLanes draws the holders of a user's service's lock over a run,
// one lane per replica (and one for claims no replica was traced to): a
// bar for each time the replica held the lock, as Redis's MONITOR showed
// it, amber when its TTL ran out before a release. nil without claims.
func holderLanes(run history.Run, claims []history.LockClaim) *lanes {
	byReplica := map[int][]history.LockClaim{}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, c := range claims {
		byReplica[c.Replica] = append(byReplica[c.Replica], c)
		lo, hi = min(lo, c.First), max(hi, c.Last, holdEnd(c))
	}
	if len(byReplica) == 0 {
		return nil
	}
	if run.GoAt > 0 {
		lo = min(lo, run.GoAt)
	}
	d := storyDrawing{run: run}
	pad := max((hi-lo)/30, 1000)
	d.from, d.width = lo-pad, hi-lo+2*pad
	reps := make([]int, 0, len(byReplica))
	for r := range byReplica {
		reps = append(reps, r)
	}
	slices.SortFunc(reps, func(a, b int) int { return cmp.Compare(uint(a), uint(b)) }) // untraced last
	l := &lanes{Width: lanesWidth, Height: lanesTop + laneHeight*float64(len(reps)) + lanesBottom, Lock: true,
		FromMs: d.ms(d.from), ToMs: d.ms(d.from + d.width)}
	l.Ticks = d.ticks()
	for i := range l.Ticks {
		l.Ticks[i].Bottom = l.Height
	}
	for i, r := range reps {
		l.Lanes = append(l.Lanes, d.holderLane(r, byReplica[r], hi, lanesTop+laneHeight*float64(i)))
	}
	return l
}

// holderLane is one replica's lane: its holdings as bars, close ones
// merged, and its counts beneath its name. end is when a holding still
// held at the watch's end is drawn to.
func (d *storyDrawing) holderLane(replica int, claims []history.LockClaim, end int64, y float64) lane {
	slices.SortFunc(claims, func(a, b history.LockClaim) int { return cmp.Compare(a.Acquired, b.Acquired) })
	held, gaveUp := 0, 0
	ln := lane{Request: replicaName(replica), Y: y}
	var merged []int // holdings in each bar
	for _, c := range claims {
		if c.Acquired == 0 {
			gaveUp++
			continue
		}
		held++
		to, class := holdEnd(c), "held"
		if to == 0 {
			to = end
		}
		if c.Expired > 0 {
			class = "held expired"
		}
		b := d.span(c.Acquired, to, y+20, 20, class, "held")
		if n := len(ln.Bars); n > 0 && ln.Bars[n-1].Class == class && b.X-(ln.Bars[n-1].X+ln.Bars[n-1].W) < mergeGap {
			p := &ln.Bars[n-1]
			p.W, p.ToMs = max(p.W, b.X+b.W-p.X), b.ToMs
			merged[n-1]++
			continue
		}
		ln.Bars = append(ln.Bars, b)
		merged = append(merged, 1)
	}
	for i := range ln.Bars {
		what := "held the lock"
		if ln.Bars[i].Class != "held" {
			what = "held the lock until its TTL ran out"
		}
		if merged[i] > 1 {
			what = fmt.Sprintf("%d holders in a row %s", merged[i], what)
		}
		ln.Bars[i].Title = what
	}
	ln.Sub = fmt.Sprintf("%d held · %d gave up", held, gaveUp)
	return ln
}
