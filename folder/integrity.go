package folder

import (
	"fmt"

	"github.com/hammer-load/hammer/history"
)

// Problem is one way a results folder's record files do not add up with
// what its manifest recorded about them.
type Problem struct {
	// File is the record file concerned; empty when the problem concerns
	// every record file (the manifest recorded no digests at all).
	File string
	// Changed is set when the file's bytes are known not to be the ones the
	// run wrote (cut short, rows added, removed or edited); unset when they
	// could not be checked.
	Changed bool
	// Detail is the problem in one plain line, naming the file and the
	// numbers, e.g. "history.jsonl holds 800 records but manifest.json
	// recorded 1000".
	Detail string
}

// Concerns reports whether the problem bears on the named record file.
func (p Problem) Concerns(file string) bool { return p.File == "" || p.File == file }

// integrity compares what Load read from each record file with what the
// manifest recorded, one Problem per thing that does not add up. A record
// count that differs already says the file changed, so the SHA-256 is
// named only when the counts agree.
func integrity(recorded map[string]history.FileDigest, read map[string]scanned) []Problem {
	var out []Problem
	if len(recorded) == 0 {
		out = append(out, Problem{Detail: ManifestFile + " records no digests for the record files " +
			"(written before hammer recorded them), so the folder cannot be checked"})
	}
	for _, name := range recordFiles() {
		got := read[name]
		if _, ok := recorded[name]; !ok && optional(name) && got.broken == "is missing" {
			continue
		}
		if got.broken != "" {
			out = append(out, Problem{File: name, Changed: true, Detail: name + " " + got.broken})
			continue
		}
		if got.cut {
			out = append(out, Problem{File: name, Changed: true, Detail: fmt.Sprintf(
				"%s ends in the middle of record %d (cut short)", name, got.Records+1)})
		}
		if len(recorded) == 0 {
			continue
		}
		out = append(out, digestProblems(name, got.FileDigest, recorded)...)
	}
	return out
}

// digestProblems compares what was read from one record file with the
// digest the manifest recorded for it.
func digestProblems(name string, got history.FileDigest, recorded map[string]history.FileDigest) []Problem {
	want, ok := recorded[name]
	switch {
	case !ok:
		return []Problem{{File: name, Detail: fmt.Sprintf(
			"%s records no digest for %s, so it cannot be checked", ManifestFile, name)}}
	case got.Records != want.Records:
		return []Problem{{File: name, Changed: true, Detail: fmt.Sprintf(
			"%s holds %d records but %s recorded %d", name, got.Records, ManifestFile, want.Records)}}
	case got.SHA256 != want.SHA256:
		return []Problem{{File: name, Changed: true, Detail: fmt.Sprintf(
			"%s does not match the SHA-256 %s recorded for it (changed after the run)", name, ManifestFile)}}
	}
	return nil
}
