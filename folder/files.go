package folder

import (
	"path"
	"strconv"
	"strings"

	"github.com/hammer-load/hammer/latency"
)

// The files of a results folder. The record files and manifest.json are
// what a race leaves behind (Save, Load); histograms.json and the .hgrm
// files hold its latency (SaveHistograms); the rest are rendered from
// the verified runs by package report.
const (
	// ManifestFile describes the runs and holds the record files' digests.
	ManifestFile = "manifest.json"
	// HistoryFile holds one attempt per line.
	HistoryFile = "history.jsonl"
	// LedgerFile holds the sale rows as read back after the race.
	LedgerFile = "ledger.jsonl"
	// SectorsFile holds the final sector row of each run.
	SectorsFile = "sectors.jsonl"
	// FaultsFile holds every injected fault.
	FaultsFile = "faults.jsonl"
	// LocksFile holds the claims on a user's service's lock, seen in
	// Redis's MONITOR stream.
	LocksFile = "locks.jsonl"
	// SummaryFile is summary.json, the verdict of every run.
	SummaryFile = "summary.json"
	// ViolationsFile holds every violation with its story.
	ViolationsFile = "violations.txt"
	// ReportFile is the Markdown report.
	ReportFile = "report.md"
	// HTMLFile is the one-file HTML report, which a browser opens offline.
	HTMLFile = "report.html"
	// JUnitFile is the JUnit XML report of a gate.
	JUnitFile = "junit.xml"
)

// The histograms' files: histograms.json holds all of them, encoded; the
// hgrm directory one .hgrm file per run and phase.
const (
	histogramsFile = "histograms.json"
	hgrmDir        = "hgrm"
)

// logsDir holds what the replicas of a user's service printed.
const logsDir = "logs"

// ReplicaLogFile is the path, within a results folder and with forward
// slashes, of what replica i of a user's service printed during a run.
func ReplicaLogFile(run string, i int) string { return replicaLogFile(fileName(run), strconv.Itoa(i)) }

func replicaLogFile(run, i string) string { return path.Join(logsDir, run+".replica-"+i+".log") }

// porcupineDir holds porcupine's visualization of each run's history.
const porcupineDir = "porcupine"

// PorcupineFile is the path, within a results folder and with forward
// slashes, of the HTML page in which porcupine draws a run's history and
// its linearization.
func PorcupineFile(run string) string { return path.Join(porcupineDir, fileName(run)+".html") }

// recordFiles lists the record files in the order Save writes them;
// manifest.json records a history.FileDigest for each.
func recordFiles() []string {
	return []string{HistoryFile, LedgerFile, SectorsFile, FaultsFile, LocksFile}
}

// optional reports whether a folder may lack the record file name (one
// written before hammer wrote it) without that being a problem: when its
// manifest records no digest for it and it is not there.
func optional(name string) bool { return name == LocksFile }

// The charts of a results folder, by name.
const (
	// SpectrumChart is whole-attempt latency by percentile, per run.
	SpectrumChart = "latency-spectrum"
	// PhasesChart is the mean time of each phase, per run.
	PhasesChart = "phases"
	// SoldChart is seats sold over time, per run, with fault windows.
	SoldChart = "sold-over-time"
	// RateChart is attempts completed per second by outcome.
	RateChart = "attempts-per-second"
	// LockWaitChart is the histogram of lock wait, per run that locks.
	LockWaitChart = "lock-wait"
)

// Chart is one chart of a results folder: its name, which its files are
// named after, and its title, which the chart and report.md both show.
type Chart struct {
	Name  string
	Title string
}

// Charts lists every chart of a results folder, in the order report.md
// shows them.
func Charts() []Chart {
	return []Chart{
		{Name: SpectrumChart, Title: "Percentile spectrum of attempt latency"},
		{Name: PhasesChart, Title: "Where time goes"},
		{Name: SoldChart, Title: "Seats sold over time"},
		{Name: RateChart, Title: "Attempts per second by outcome"},
		{Name: LockWaitChart, Title: "Lock wait"},
	}
}

// PNG is the chart's PNG file, the one report.md shows.
func (c Chart) PNG() string { return c.Name + ".png" }

// Files are the chart's files: a PNG and an SVG.
func (c Chart) Files() []string { return []string{c.PNG(), c.Name + ".svg"} }

// hgrmFile is the path, within a results folder, of the .hgrm file of a
// run's phase.
func hgrmFile(run string, p latency.Phase) string {
	return path.Join(hgrmDir, fileName(run)+"."+string(p)+".hgrm")
}

// fileName turns a run name such as "lock-only/pause+extend" into a file
// name: "lock-only_pause_extend".
func fileName(run string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '+' || r == ' ' {
			return '_'
		}
		return r
	}, run)
}

// files lists every file a results folder can hold, the .hgrm files as
// one pattern: what docs/results.md describes.
func files() []string {
	out := append(recordFiles(), ManifestFile, histogramsFile, hgrmFile("<run>", "<phase>"),
		SummaryFile, ViolationsFile, ReportFile, HTMLFile, JUnitFile, PorcupineFile("<run>"), replicaLogFile("<run>", "<n>"))
	for _, c := range Charts() {
		out = append(out, c.Files()...)
	}
	return out
}

// The most hammer reads of each file of a results folder: a file past its
// limit (or one that is no regular file) makes Load fail instead of
// reading without end. A race of 100,000 attempts writes about 21 MB of
// history (214 bytes an attempt, 382 at most) and 156 bytes a sale, so
// the record files' limits leave room for some 20 million attempts; the
// small files hold a few kilobytes per run.
const (
	maxHistorySize    = 4 << 30   // history.jsonl
	maxLedgerSize     = 2 << 30   // ledger.jsonl: at most a sale per attempt, smaller
	maxSectorsSize    = 16 << 20  // sectors.jsonl: a row per run
	maxFaultsSize     = 256 << 20 // faults.jsonl: a record per strike
	maxLocksSize      = 1 << 30   // locks.jsonl: about 200 bytes a claim, one per attempt at most
	maxManifestSize   = 16 << 20  // manifest.json: about 1 KB per run
	maxHistogramsSize = 256 << 20 // histograms.json: about 5 KB per run
)

// maxSize is the most Load reads of the record file name.
func maxSize(name string) int64 {
	switch name {
	case HistoryFile:
		return maxHistorySize
	case LedgerFile:
		return maxLedgerSize
	case SectorsFile:
		return maxSectorsSize
	case LocksFile:
		return maxLocksSize
	}
	return maxFaultsSize
}
