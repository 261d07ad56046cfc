package main

import (
	"fmt"
	"strings"

	"github.com/hammer-load/hammer/scenarios"
)

// lockNames lists the locks --lock takes, the last two joined by last:
// "hammer, redsync or redislock".
func lockNames(last string) string { return joinNames(scenarios.Locks(), last) }

// joinNames lists names, the last two joined by last: "a, b or c".
func joinNames[T ~string](names []T, last string) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	n := len(s)
	return strings.Join(s[:n-1], ", ") + last + s[n-1]
}

// withLock gives the lock --lock names to every scenario that takes a
// lock it can serve and names none of its own (a matrix cell's lock=
// wins). The others race as they would without the flag: the modes
// without a lock take none, and fenced keeps hammer's own lock, the only
// one with fencing tokens; their names say so. run refuses both up front
// (runLock). A service (--target) takes its own lock, so a library there
// is refused, and so is a --lock that makes two cells of a matrix the
// same.
func (f *raceFlags) withLock(scns []scenarios.Scenario) ([]scenarios.Scenario, error) {
	if !f.lock.Library() {
		return scns, nil
	}
	if err := f.lock.CheckNodes(f.redisNodes); err != nil {
		return nil, fmt.Errorf("--lock %w", err)
	}
	if f.target.file != nil {
		return nil, fmt.Errorf("--lock %s chooses the lock of hammer's own strategies; a --target service takes its own lock", f.lock)
	}
	out := make([]scenarios.Scenario, 0, len(scns))
	seen := map[string]bool{}
	for _, sc := range scns {
		if sc.Lock == "" && f.lock.CheckMode(sc.Mode) == nil {
			sc.Lock = f.lock
			sc = sc.Named()
		}
		if seen[sc.Name] {
			return nil, fmt.Errorf("--lock %s makes two cells %s: the matrix already has the cell it turns another into", f.lock, sc.Name)
		}
		seen[sc.Name] = true
		out = append(out, sc)
	}
	return out, nil
}

// runLock is the lock of `hammer run`'s one race of mode m: --lock, if
// the mode can take it.
func (f *raceFlags) runLock(m scenarios.Mode) (scenarios.Lock, error) {
	if f.target.file != nil || !f.lock.Library() {
		return "", nil // a --target service is refused by withLock
	}
	if err := f.lock.CheckMode(m); err != nil {
		return "", fmt.Errorf("--lock %w", err)
	}
	if err := f.lock.CheckNodes(f.redisNodes); err != nil {
		return "", fmt.Errorf("--lock %w", err)
	}
	return f.lock, nil
}
