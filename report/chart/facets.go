package chart

// facet is what one panel of a chart shows: a title and the runs in it.
type facet struct {
	title string
	runs  map[string]bool
}

// faceted reports whether the run charts of d are drawn as a grid of
// panels, one per fault, rather than one panel: when a folder holds more
// than 8 runs under more than one fault and no two runs share both mode
// and fault, so that within a panel the colour alone tells runs apart.
// A gate folder is drawn so; a load folder (no faults) is not.
func faceted(d Data) bool {
	if len(d.Runs) <= 8 {
		return false
	}
	type cell struct{ colour, dash int }
	seen := map[cell]bool{}
	dashes := map[int]bool{}
	for _, r := range d.Runs {
		c := cell{r.Colour, r.Dash}
		if seen[c] {
			return false
		}
		seen[c], dashes[r.Dash] = true, true
	}
	return len(dashes) > 1
}

// facets returns the panels of a run chart in the order the faults first
// appear in the manifest: one panel per fault when faceted, else one
// untitled panel of every run.
func facets(d Data) []facet {
	if !faceted(d) {
		all := facet{runs: map[string]bool{}}
		for _, r := range d.Runs {
			all.runs[r.Name] = true
		}
		return []facet{all}
	}
	var out []facet
	byDash := map[int]int{}
	for _, r := range d.Runs {
		i, ok := byDash[r.Dash]
		if !ok {
			i = len(out)
			byDash[r.Dash] = i
			title := r.Variant
			if title == "" {
				title = "no fault"
			}
			out = append(out, facet{title: title, runs: map[string]bool{}})
		}
		out[i].runs[r.Name] = true
	}
	return out
}
