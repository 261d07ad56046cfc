package history

// Log is the raw history a race leaves behind for a results folder: the
// manifest and the raw records of every run in it. Package folder saves
// it, loads it back and splits it by run (folder.Folder wraps it with the
// latency histograms and the per-run views).
type Log struct {
	Manifest Manifest
	Records
}

// Records are the raw records of one or more runs.
type Records struct {
	Attempts []Attempt
	Sales    []Sale
	Sectors  []Sector
	Faults   []FaultEvent
	// Locks are the claims on a user's service's lock, seen from
	// outside (empty for hammer's own strategies).
	Locks []LockClaim
}

// Add appends o's records to r.
func (r *Records) Add(o Records) {
	r.Attempts = append(r.Attempts, o.Attempts...)
	r.Sales = append(r.Sales, o.Sales...)
	r.Sectors = append(r.Sectors, o.Sectors...)
	r.Faults = append(r.Faults, o.Faults...)
	r.Locks = append(r.Locks, o.Locks...)
}
