package linearize

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"

	"github.com/anishathalye/porcupine"

	"github.com/hammer-load/hammer/history"
)

// visual is what porcupine needs to draw a checked history.
type visual struct {
	model   porcupine.Model
	info    porcupine.LinearizationInfo
	run     string
	verdict string
	illegal bool
}

// ErrNoVisualization is returned by Visualize for a run that was never
// checked (its ledger was not read), which porcupine has nothing to draw
// of, or whose history has more than MaxDrawn operations.
var ErrNoVisualization = errors.New("no history was kept to draw: it was not checked, or has more operations than porcupine draws")

// CanVisualize reports whether Visualize has a history to draw.
func (r Result) CanVisualize() bool { return r.vis != nil }

// Visualize writes porcupine's interactive visualization of the checked
// history as one HTML page: a row per contender (attempts that never
// overlap share one), each seat's linearization, and annotations for the
// injected faults, the servers' outages and the lock's holders. A page of
// an illegal history opens at its first illegal point: the longest prefix
// of that seat's history porcupine could linearize and the operation that
// cannot follow it (porcupine's own "jump to first error", clicked when
// the page loads).
func (r Result) Visualize(w io.Writer) error {
	if r.vis == nil {
		return ErrNoVisualization
	}
	var b bytes.Buffer
	if err := porcupine.Visualize(r.vis.model, r.vis.info, &b); err != nil {
		return fmt.Errorf("visualize: %w", err)
	}
	title := fmt.Sprintf("porcupine: %s", r.vis.run)
	banner := fmt.Sprintf(`<p style="margin: 50px 8px 0">run <b>%s</b> — porcupine says <b>%s</b></p>`,
		html.EscapeString(r.vis.run), html.EscapeString(r.vis.verdict))
	edits := []edit{
		{"<title>Porcupine</title>", "<title>" + html.EscapeString(title) + "</title>"},
		{"<body>", "<body>\n    " + banner},
	}
	if r.vis.illegal {
		edits = append(edits, edit{"</body>", jumpOnLoad + "\n  </body>"})
	}
	return splice(w, b.Bytes(), edits)
}

// edit replaces the first occurrence of old, after the previous edit's,
// with new.
type edit struct{ old, new string }

// splice writes page to w with edits made, in the order they come in the
// page, without a copy of it: a checked history of 100,000 attempts draws
// a page of some 30 MB.
func splice(w io.Writer, page []byte, edits []edit) error {
	for _, e := range edits {
		i := bytes.Index(page, []byte(e.old))
		if i < 0 {
			continue
		}
		if _, err := w.Write(page[:i]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, e.new); err != nil {
			return err
		}
		page = page[i+len(e.old):]
	}
	_, err := w.Write(page)
	return err
}

// jumpOnLoad clicks porcupine's "jump to first error" once the page has
// drawn the history.
const jumpOnLoad = `<script>
      window.addEventListener('load', () => {
        const jump = document.querySelector('#jump-link')
        if (jump && !jump.classList.contains('inactive')) jump.dispatchEvent(new MouseEvent('click'))
      })
    </script>`

// annotations are the visualization's rows beside the contenders: the
// injected faults, the servers' outages and the lock's holders, one row
// each.
func annotations(h History, t timeline) []porcupine.Annotation {
	var out []porcupine.Annotation
	for _, f := range h.Faults {
		a := porcupine.Annotation{Tag: "fault", Start: f.Start, End: max(f.End, f.Start),
			Description: string(f.Fault), Details: f.Detail, BackgroundColor: "#f6c9a6"}
		switch {
		case f.Failed != "":
			a.Description += " (failed)"
			a.Details += "; failed: " + f.Failed
		case f.Unmet != "":
			a.Description += " (unmet)"
			a.Details += "; unmet: " + f.Unmet
		}
		out = append(out, a)
	}
	for _, o := range h.Outages {
		end := o.To
		if end == 0 {
			end = t.end
		}
		a := porcupine.Annotation{Tag: "outage", Start: o.From, End: max(end, o.From),
			Description: o.Server + " down", Details: o.Err, BackgroundColor: "#f3a6a6"}
		if o.Restarted {
			a.Description = o.Server + " restarted"
		}
		out = append(out, a)
	}
	for _, a := range h.Attempts {
		if a.LockAcquired == 0 {
			continue
		}
		out = append(out, holder(a, t))
	}
	return out
}

// holder is the annotation of one lock holder: from taking the lock to
// its release (or, without one, the end of its work).
func holder(a history.Attempt, t timeline) porcupine.Annotation {
	end := a.LockAcquired
	for _, at := range []int64{a.LockReleased, a.LockReleasing, a.DBEnd, a.Complete} {
		if at != 0 {
			end = at
			break
		}
	}
	desc := a.RequestID
	if a.Token != 0 {
		desc += fmt.Sprintf(" (token %d)", a.Token)
	}
	details := fmt.Sprintf("%s held the lock from %s to %s", a.RequestID,
		history.Offset(t.start, a.LockAcquired), history.Offset(t.start, end))
	color := "#c9dcf6"
	if a.LockLost {
		details += "; its release found the lock no longer its own"
		color = "#f3a6a6"
	}
	return porcupine.Annotation{Tag: "lock", Start: a.LockAcquired, End: max(end, a.LockAcquired),
		Description: desc, Details: details, BackgroundColor: color}
}
