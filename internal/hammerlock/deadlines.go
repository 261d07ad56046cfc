package hammerlock

// deadlines is a min-heap of places by deadline (container/heap), each
// knowing its slot.
type deadlines []*place

func (d deadlines) Len() int           { return len(d) }
func (d deadlines) Less(i, j int) bool { return d[i].deadline.Before(d[j].deadline) }
func (d deadlines) Swap(i, j int) {
	d[i], d[j] = d[j], d[i]
	d[i].slot, d[j].slot = i, j
}

// Push adds x, a *place, at the end (heap.Push then sifts it up).
func (d *deadlines) Push(x any) {
	p := x.(*place)
	p.slot = len(*d)
	*d = append(*d, p)
}

// Pop removes the last place (heap.Pop and heap.Remove move theirs there).
func (d *deadlines) Pop() any {
	old := *d
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*d = old[:len(old)-1]
	p.slot = -1
	return p
}
