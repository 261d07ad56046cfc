package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/tracecontext"
	"github.com/hammer-load/hammer/verify"
)

// The geometry of a story's drawing, in SVG user units.
const (
	lanesWidth  = 960.0
	lanesLabel  = 200.0 // the column of lane labels
	lanesRight  = 20.0
	lanesTop    = 34.0 // the time axis above the lanes
	laneHeight  = 64.0
	lanesBottom = 12.0
)

// lanes is a story drawn as a timeline: one lane per request it tells,
// with the lock held (and past its TTL), the fault windows, the read,
// the write, the sale and the answer; the two holders' overlap and the
// seat sold twice are marked. Times are from the run's go signal.
type lanes struct {
	Width, Height float64
	Ticks         []tick
	Lanes         []lane
	// Overlap is when the story's first two requests were both in their
	// critical sections; nil when they were not (or hold no lock).
	Overlap *band
	// Seat is the seat sold twice; 0 when the story has none.
	Seat int
	// Zoom is set on the drawing that zooms in on the moment of one of
	// the story's first two requests, which the whole story shows too
	// small to see.
	Zoom bool
	// FromMs and ToMs are the time shown.
	FromMs, ToMs float64
	// Lock and Faults say whether some lane shows a lock held, or a
	// fault, for the caption.
	Lock, Faults bool
}

// tick is a label of the time axis.
type tick struct {
	X, Bottom float64
	Label     string
}

// lane is one request of a story.
type lane struct {
	Request, Sub string
	Y            float64
	Bars         []bar
	Marks        []mark
}

// bar is a span of time on a lane: the attempt, the lock held, the lock
// held past its TTL, a fault window.
type bar struct {
	X, W, Y, H     float64
	Class, Title   string
	FromMs, ToMs   float64
	LabelX, LabelY float64
	Label          string
	hidden         bool
}

// mark is an instant on a lane: a read, a write, a sale, an answer.
type mark struct {
	X, Y1, Y2, TextY float64
	Class, Label     string
	// Anchor aligns the label (an SVG text-anchor) so that it stays
	// within the drawing near its edges.
	Anchor string
	Title  string
	AtMs   float64
	hidden bool
}

// band is a span of time across every lane.
type band struct {
	X, W, Y, H   float64
	Label        string
	FromMs, ToMs float64
}

// drawStory draws violation v of a run from its records: the whole
// story and, when the second request's moment is too short to see in it,
// a zoom on the shorter moment of its first two requests; nil when none of the story's requests has a
// recorded attempt.
func drawStory(run history.Run, rec history.Records, v verify.Violation) []*lanes {
	byID := map[string][]history.Attempt{}
	for _, a := range rec.Attempts {
		if slices.Contains(v.Actors, a.RequestID) {
			byID[a.RequestID] = append(byID[a.RequestID], a)
		}
	}
	if len(byID) == 0 {
		return nil
	}
	d := storyDrawing{run: run, faults: rec.Faults, seat: v.Seat}
	for _, id := range v.Actors {
		if as := byID[id]; len(as) > 0 {
			d.actors = append(d.actors, actor{id: id, attempts: as})
		}
	}
	d.scale()
	out := []*lanes{d.draw()}
	if len(d.actors) < 2 {
		return out
	}
	lo, hi := moment(d.actors[0])
	if l2, h2 := moment(d.actors[1]); h2-l2 < hi-lo {
		lo, hi = l2, h2
	}
	if lo > 0 && hi > lo && hi-lo < d.width/8 {
		pad := max((hi-lo)/3, 1000)
		d.from, d.width = lo-pad, hi-lo+2*pad
		z := d.draw()
		z.Zoom = true
		out = append(out, z)
	}
	return out
}

// moment is when a request did what matters: from taking the lock (or
// sending its request) to its answer.
func moment(a actor) (lo, hi int64) {
	lo = math.MaxInt64
	for _, at := range a.attempts {
		start := at.LockAcquired
		if start == 0 {
			start = at.Invoke
		}
		lo, hi = min(lo, start), max(hi, at.Complete, at.DBEnd)
	}
	return lo, hi
}

// actor is one request of a story with its attempts.
type actor struct {
	id       string
	attempts []history.Attempt
}

// storyDrawing is a story being drawn: what it tells, and the time scale.
type storyDrawing struct {
	run         history.Run
	faults      []history.FaultEvent
	seat        int
	actors      []actor
	from, width int64 // the time shown, in ns
}

// draw lays out the lanes over the time shown.
func (d *storyDrawing) draw() *lanes {
	l := &lanes{Width: lanesWidth, Height: lanesTop + laneHeight*float64(len(d.actors)) + lanesBottom, Seat: d.seat,
		FromMs: d.ms(d.from), ToMs: d.ms(d.from + d.width)}
	l.Ticks = d.ticks()
	for i := range l.Ticks {
		l.Ticks[i].Bottom = l.Height
	}
	for i, a := range d.actors {
		ln := d.lane(a, lanesTop+laneHeight*float64(i))
		for _, b := range ln.Bars {
			l.Lock = l.Lock || strings.HasPrefix(b.Class, "held")
			l.Faults = l.Faults || b.Class == "fault"
		}
		l.Lanes = append(l.Lanes, ln)
	}
	if len(d.actors) >= 2 {
		a, aok := critical(d.actors[0].attempts)
		b, bok := critical(d.actors[1].attempts)
		if from, to := max(a[0], b[0]), min(a[1], b[1]); aok && bok && to > from {
			x0, x1 := d.clampX(from), d.clampX(to)
			l.Overlap = &band{X: x0, W: max(x1-x0, 1.5), Y: lanesTop - 6, H: laneHeight*2 + 6,
				Label: "both in the critical section", FromMs: d.ms(from), ToMs: d.ms(to)}
		}
	}
	return l
}

// expiry is when an attempt's lock expired while it still worked, as
// the story tells it: its TTL after it took (or last extended) the lock,
// when that came before its write.
func (d *storyDrawing) expiry(a history.Attempt) (int64, bool) {
	ttl := d.run.LockTTL
	if ttl <= 0 || a.LockAcquired == 0 || (d.run.Extend && !a.LockLost) {
		return 0, false
	}
	base := a.LockAcquired
	if d.run.Extend && a.Extended > base {
		base = a.Extended
	}
	end := max(a.DBEnd, a.LockReleasing)
	return base + ttl, end > base+ttl
}

// critical is the critical section of the attempt of a request that
// took the lock: from taking it to its write (or its answer).
func critical(as []history.Attempt) ([2]int64, bool) {
	for _, a := range as {
		if a.LockAcquired == 0 {
			continue
		}
		end := a.DBEnd
		if end == 0 {
			end = a.Complete
		}
		return [2]int64{a.LockAcquired, end}, end > a.LockAcquired
	}
	return [2]int64{}, false
}

// faultsOf are the faults that struck a request, or the replica of a
// user's service its request went to.
func (d *storyDrawing) faultsOf(a actor) []history.FaultEvent {
	struck := []string{a.id}
	for _, at := range a.attempts {
		if i, _, ok := strings.Cut(strings.TrimPrefix(at.Replica, "r"), " "); ok && at.Replica != "" {
			struck = append(struck, "replica "+i)
		}
	}
	var out []history.FaultEvent
	for _, f := range d.faults {
		if slices.Contains(struck, f.RequestID) {
			out = append(out, f)
		}
	}
	return out
}

// span is a bar from t0 to t1 at height y..y+h.
func (d *storyDrawing) span(t0, t1 int64, y, h float64, class, title string) bar {
	x0, x1 := d.clampX(t0), d.clampX(t1)
	return bar{X: x0, W: max(x1-x0, 1), Y: y, H: h, Class: class, Title: title,
		FromMs: d.ms(t0), ToMs: d.ms(t1), hidden: t1 < d.from || t0 > d.from+d.width}
}

// at is a mark at instant t on the lane at y, labelled above or below.
func (d *storyDrawing) at(t int64, y float64, class, label, title string, above bool) mark {
	m := mark{X: d.x(t), Y1: y + 14, Y2: y + 46, Class: class, Label: label, AtMs: d.ms(t),
		Title: fmt.Sprintf("+%s %s", fmtMs(d.ms(t)), title), hidden: !d.shown(t)}
	m.TextY = y + 58
	if above {
		m.TextY = y + 10
	}
	// A label is about 7 units a character wide at the drawing's size.
	half := 3.5 * float64(len(label))
	switch {
	case m.X+half > lanesWidth-4:
		m.Anchor = "end"
	case m.X-half < lanesLabel-4:
		m.Anchor = "start"
	default:
		m.Anchor = "middle"
	}
	return m
}

// lane draws one request: its fault windows, its attempts, its lock and
// the instants of its read, write and answer.
func (d *storyDrawing) lane(a actor, y float64) lane {
	ln := lane{Request: a.id, Y: y}
	for _, f := range d.faultsOf(a) {
		end := max(f.End, f.Start+d.width/200)
		b := d.span(f.Start, end, y+8, 44, "fault", "fault "+string(f.Fault)+": "+f.Detail)
		b.Label, b.LabelX, b.LabelY = "fault "+string(f.Fault), b.X+3, y+50
		ln.Bars = append(ln.Bars, b)
	}
	for _, at := range a.attempts {
		ln.Sub = fmt.Sprintf("process %d", at.Proc)
		if at.Replica != "" {
			ln.Sub = "replica " + at.Replica
		}
		ln.Bars = append(ln.Bars, d.span(at.Invoke, max(at.Complete, at.Invoke), y+28, 4, "attempt",
			fmt.Sprintf("%s: the attempt, from its start to its answer%s", a.id, traceOf(at))))
		d.lockBars(&ln, at, y)
		d.marks(&ln, at, y)
	}
	ln.Bars = slices.DeleteFunc(ln.Bars, func(b bar) bool { return b.hidden })
	ln.Marks = slices.DeleteFunc(ln.Marks, func(m mark) bool { return m.hidden })
	return ln
}

// traceOf names the trace an attempt's request was sent with, to look
// it up in the service's traces: " (trace 4bf9…)", or nothing.
func traceOf(a history.Attempt) string {
	if _, ok := tracecontext.ParseTraceID(a.Trace); !ok {
		return ""
	}
	return " (trace " + a.Trace + ")"
}

// lockBars draws the lock an attempt held: solid while its TTL ran,
// hatched once it had expired while the holder still worked.
func (d *storyDrawing) lockBars(ln *lane, a history.Attempt, y float64) {
	if a.LockAcquired == 0 {
		return
	}
	end := a.LockReleasing
	for _, t := range []int64{a.LockReleased, a.DBEnd, a.Complete} {
		if end == 0 {
			end = t
		}
	}
	end = max(end, a.LockAcquired)
	title := fmt.Sprintf("%s held the lock", a.RequestID)
	if a.Token != 0 {
		title += fmt.Sprintf(" (fencing token %d)", a.Token)
	}
	if exp, ok := d.expiry(a); ok && exp < end {
		ln.Bars = append(ln.Bars, d.span(a.LockAcquired, exp, y+20, 20, "held", title),
			d.span(exp, end, y+20, 20, "held expired", title+" after its TTL had expired: no longer its own"))
		ln.Marks = append(ln.Marks, d.at(exp, y, "ttl", "TTL expired",
			fmt.Sprintf("the lock of %s expired (TTL %s)", a.RequestID, fmtMs(float64(d.run.LockTTL)/1e6)), true))
		return
	}
	ln.Bars = append(ln.Bars, d.span(a.LockAcquired, end, y+20, 20, "held", title))
}

// marks draws the instants of an attempt: its read, its write (the sale)
// and its answer.
func (d *storyDrawing) marks(ln *lane, a history.Attempt, y float64) {
	if a.ReadAvailable != nil && a.ReadAt != 0 {
		ln.Marks = append(ln.Marks, d.at(a.ReadAt, y, "read", fmt.Sprintf("read %d", *a.ReadAvailable),
			fmt.Sprintf("%s read available = %d", a.RequestID, *a.ReadAvailable), true))
	}
	if a.DBEnd != 0 {
		class, label := "write", string(a.Outcome)
		if a.Outcome == history.Sold {
			class, label = "sale", fmt.Sprintf("sold seat %d", a.Seat)
			if d.seat != 0 && a.Seat == d.seat {
				class += " double"
			}
		}
		ln.Marks = append(ln.Marks, d.at(a.DBEnd, y, class, label, a.RequestID+" wrote: "+label, false))
	}
	if a.Complete != 0 {
		label := "answer"
		if a.Replica != "" {
			label = answerText(a)
		}
		class := "answer"
		if a.Replica != "" && a.Outcome == history.Sold && d.seat != 0 && a.Seat == d.seat {
			class += " double"
		}
		m := d.at(a.Complete, y, class, label, fmt.Sprintf("%s answered: %s", a.RequestID, answerText(a)), a.Replica != "")
		if a.DBEnd != 0 {
			m.Label = ""
		}
		ln.Marks = append(ln.Marks, m)
	}
}

// answerText is what an attempt's answer said.
func answerText(a history.Attempt) string {
	s := string(a.Outcome)
	if a.Outcome == history.Sold {
		s = fmt.Sprintf("sold seat %d", a.Seat)
	}
	if a.Status != 0 {
		s = fmt.Sprintf("%d %s", a.Status, s)
	}
	if a.Err != "" && a.Outcome != history.Sold {
		s += " (" + a.Err + ")"
	}
	return s
}
