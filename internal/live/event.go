// Package live follows a race while it runs, for people and for
// Prometheus: a hub fans the race's events out to the browsers of the
// live page over server-sent events, without ever making the race wait
// for one (bounded buffers; a slow browser's events are dropped and
// counted), and a registry keeps the same numbers as Prometheus metrics.
// A Feed turns the race's own progress stream (the records the progress
// bars count, the fault events, the go signal) into both; a Server
// serves the page, the stream and /metrics on one address.
//
// Data flows one way: the race tells the feed, the feed tells the hub
// and the registry, the server reads them. Nothing here can change what
// lands in the results folder.
package live

import (
	"encoding/json"
)

// Message is one server-sent event: its type (the SSE "event:" field)
// and its data, a JSON object.
type Message struct {
	Type string
	Data []byte
}

// The types of the messages the page understands.
const (
	// TypeHello opens every stream: the command and how events are sent.
	TypeHello = "hello"
	// TypeRace announces a race as it starts (RaceEvent).
	TypeRace = "race"
	// TypeTick is a race's counters at an instant (TickEvent).
	TypeTick = "tick"
	// TypeStrike is a strike as it begins (StrikeEvent); its fault event
	// follows when it is recorded.
	TypeStrike = "strike"
	// TypeFault is one fault event as it was recorded (FaultEvent).
	TypeFault = "fault"
	// TypeCurve is a race's exact curve, sent when it ended (CurveEvent).
	TypeCurve = "curve"
	// TypeDone says a race ended; its verdict comes later (DoneEvent).
	TypeDone = "done"
	// TypeVerdict is the verdict of every race, once judged (VerdictEvent).
	TypeVerdict = "verdict"
	// TypeDropped tells a client how many events it was too slow to take.
	TypeDropped = "dropped"
	// TypeEnd is the last message: the server closes soon after (EndEvent).
	TypeEnd = "end"
)

// HelloEvent opens a stream.
type HelloEvent struct {
	Command string `json:"command"`
	RunID   string `json:"run_id"`
	// Buffer is how many events the server holds for a client that does
	// not read; past it, the client's events are dropped and counted.
	Buffer int `json:"buffer"`
}

// RaceEvent describes a race as it starts.
type RaceEvent struct {
	Run        string  `json:"run"`
	Index      int     `json:"index"` // 0 for the command's first race
	Mode       string  `json:"mode"`
	Fault      string  `json:"fault,omitempty"`
	Lock       string  `json:"lock,omitempty"`
	Seats      int     `json:"seats"`
	Contenders int     `json:"contenders"`
	Rate       float64 `json:"rate,omitempty"`       // open model: attempts per second
	Duration   float64 `json:"duration_s,omitempty"` // open model: seconds
}

// TickEvent is a race's counters as of T seconds after its go signal (0
// before it).
type TickEvent struct {
	Run      string         `json:"run"`
	T        float64        `json:"t"`
	Attempts int64          `json:"attempts"`
	Sold     int64          `json:"sold"`
	InFlight int64          `json:"in_flight"`
	Handoffs int64          `json:"handoffs"`
	Faults   int64          `json:"faults"`
	Outcomes map[string]int `json:"outcomes"`
}

// FaultEvent is one fault event of a race, T seconds after its go signal.
type FaultEvent struct {
	Run    string  `json:"run"`
	Fault  string  `json:"fault"`
	T      float64 `json:"t"`
	Lasted float64 `json:"lasted_s"`
	Detail string  `json:"detail"`
	Failed string  `json:"failed,omitempty"`
	// Unmet says what of the fault's timeline did not happen
	// (history.FaultEvent.Unmet).
	Unmet string `json:"unmet,omitempty"`
}

// CurveEvent is a race's curve by when each attempt was answered (not
// when its record arrived): at T[i] seconds after the go signal,
// Answered[i] attempts had been answered and Sold[i] told they got a
// seat. It starts at 0 and has at most 501 points.
type CurveEvent struct {
	Run      string    `json:"run"`
	T        []float64 `json:"t"`
	Answered []int64   `json:"answered"`
	Sold     []int64   `json:"sold"`
}

// StrikeEvent is a strike beginning T seconds after the race's go
// signal, on worker Proc's contender of RequestID.
type StrikeEvent struct {
	Run       string  `json:"run"`
	Fault     string  `json:"fault"`
	T         float64 `json:"t"`
	Proc      int     `json:"proc"`
	RequestID string  `json:"request_id"`
}

// DoneEvent says a race ended after Elapsed seconds from its go signal.
type DoneEvent struct {
	Run     string  `json:"run"`
	Elapsed float64 `json:"elapsed_s"`
}

// RunVerdict is one race's verdict.
type RunVerdict struct {
	Run     string `json:"run"`
	Verdict string `json:"verdict"` // valid, invalid or unknown
	// Expected is the run's expectation and ExpectOK whether it held;
	// both absent for a run without one (run's).
	Expected string `json:"expected,omitempty"`
	ExpectOK *bool  `json:"expectation_met,omitempty"`
	Seats    int    `json:"seats"`
	Sold     int    `json:"sold"`
	Oversold int    `json:"oversold"`
	// Violations is how many violations were found, and First the first
	// one in a line ("double-sold: seat 150 sold 2 times …").
	Violations int    `json:"violations"`
	First      string `json:"first_violation,omitempty"`
}

// VerdictEvent is the verdict of the command's races.
type VerdictEvent struct {
	Runs     []RunVerdict `json:"runs"`
	ExitCode int          `json:"exit_code"`
	// Report is the path on this server of the results folder's report
	// (report.html, else report.md), empty when there is none; Folder
	// is the results folder on the host that ran hammer.
	Report string `json:"report,omitempty"`
	Folder string `json:"folder"`
}

// DroppedEvent tells a client how many events it missed in all.
type DroppedEvent struct {
	Dropped int64 `json:"dropped"`
}

// EndEvent is the last event of a stream.
type EndEvent struct {
	// Why the stream ends: "done", or why hammer stopped early.
	Why string `json:"why"`
	// Grace is how long the server stays up for the page to fetch the
	// report, in seconds.
	Grace float64 `json:"grace_s"`
}

// newMessage encodes v as the data of a message of type typ.
func newMessage(typ string, v any) Message {
	data, err := json.Marshal(v)
	if err != nil {
		// Every event is a struct of plain fields: it always encodes.
		panic("live: encode " + typ + ": " + err.Error())
	}
	return Message{Type: typ, Data: data}
}
