package history

// Redact replaces, through mask, every string of the folder that can carry
// the text of an error — and with it a server's URL or password: the
// manifest's stack notes, skip reasons, runs' incomplete reasons, unread
// ledgers and outages, the replicas' logs, the attempts' errors and the faults' details and
// failures, and the lock values a service set. Call it before the folder is saved: every file of a results
// folder is written from these records.
func (f *Log) Redact(mask func(string) string) {
	m := &f.Manifest
	redactAll(m.StackNotes, mask)
	redactAll(m.Skipped, mask)
	m.Env.Target = mask(m.Env.Target)
	for i := range m.Runs {
		r := &m.Runs[i]
		redactAll(r.Incomplete, mask)
		r.LedgerUnread = mask(r.LedgerUnread)
		for j := range r.Outages {
			r.Outages[j].Err = mask(r.Outages[j].Err)
		}
		for j := range r.ReplicaLogs {
			l := &r.ReplicaLogs[j]
			redactAll(l.Last, mask)
			l.Text = []byte(mask(string(l.Text)))
		}
	}
	for i := range f.Attempts {
		f.Attempts[i].Err = mask(f.Attempts[i].Err)
	}
	for i := range f.Faults {
		f.Faults[i].Detail = mask(f.Faults[i].Detail)
		f.Faults[i].Failed = mask(f.Faults[i].Failed)
		f.Faults[i].Unmet = mask(f.Faults[i].Unmet)
	}
	for i := range f.Locks {
		f.Locks[i].Token = mask(f.Locks[i].Token) // a service's own value
	}
}

// redactAll masks each string of xs in place.
func redactAll(xs []string, mask func(string) string) {
	for i := range xs {
		xs[i] = mask(xs[i])
	}
}
