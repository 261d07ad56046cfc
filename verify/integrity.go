package verify

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hammer-load/hammer/folder"
)

// restsOn names the record files a check reads: a violation it finds
// proves something only while all of them are as the run wrote them.
func restsOn(check string) []string {
	switch check {
	case CheckOversell, CheckDoubleSold:
		return []string{folder.LedgerFile}
	case CheckConservation:
		return []string{folder.LedgerFile, folder.SectorsFile}
	case CheckMutualExclusion:
		// Whether an injected fault caused an overlap is read from the
		// fault events.
		return []string{folder.HistoryFile, folder.FaultsFile}
	case CheckUnexpectedError:
		return []string{folder.HistoryFile}
	}
	// missing-sale, phantom-sale, duplicate-request and stuck-lock compare
	// the attempts with the sale rows.
	return []string{folder.HistoryFile, folder.LedgerFile}
}

// changed reports whether the named record file is known to have changed
// after the run.
func (x *index) changed(file string) bool {
	return slices.ContainsFunc(x.in.Integrity, func(p folder.Problem) bool {
		return p.Changed && p.Concerns(file)
	})
}

// inDoubt reports whether the named record file changed after the run or
// could not be checked.
func (x *index) inDoubt(file string) bool {
	return slices.ContainsFunc(x.in.Integrity, func(p folder.Problem) bool { return p.Concerns(file) })
}

// standing splits violations into those whose record files are intact (or
// unchecked) and, as notes, those that rest on a file that changed after
// the run: a tampered file proves nothing.
func (x *index) standing(vs []Violation) (kept []Violation, void []string) {
	for _, v := range vs {
		var bad []string
		for _, f := range restsOn(v.Check) {
			if x.changed(f) {
				bad = append(bad, f)
			}
		}
		if len(bad) == 0 {
			kept = append(kept, v)
			continue
		}
		void = append(void, fmt.Sprintf("not counted, as %s changed after the run: %s: %s",
			strings.Join(bad, " and "), v.Check, v.Detail))
	}
	return kept, void
}

// miscounted compares the attempts the history holds for each worker with
// the number the race made, one line per worker that differs (including
// workers the race never had); nil when the run does not say how many it
// made.
func miscounted(in Input) []string {
	if in.RequestsPerWorker == nil {
		return nil
	}
	got := map[int]int{}
	for _, a := range in.Attempts {
		got[a.Proc]++
	}
	line := func(p, made int) string {
		n := "none"
		if made > 0 {
			n = fmt.Sprint(made)
		}
		return fmt.Sprintf("%s holds %s of %s for worker %d, the race made %s", folder.HistoryFile,
			plural(got[p], "attempt", "attempts"), runName(in.Run), p, n)
	}
	var out []string
	for p, made := range in.RequestsPerWorker {
		if got[p] != made {
			out = append(out, line(p, made))
		}
		delete(got, p)
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		out = append(out, line(p, 0))
	}
	return out
}

// runName names a run in a message, or says "this run" when it has no name.
func runName(name string) string {
	if name == "" {
		return "this run"
	}
	return name
}
