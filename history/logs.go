package history

// ReplicaLog is what one replica of a user's service printed (its stdout
// and stderr, interleaved) during one race, its restarts included: the
// manifest records where it is and its last words, the results folder
// holds the text.
type ReplicaLog struct {
	// Replica is the replica's 0-based index.
	Replica int `json:"replica"`
	// File is the log's path within the results folder, with forward
	// slashes; set when the folder is saved.
	File string `json:"file,omitempty"`
	// Written is how many bytes the replica printed; Cut how many of them
	// the file leaves out, from the middle (it keeps the first and the
	// last bytes).
	Written int64 `json:"written"`
	Cut     int64 `json:"cut,omitempty"`
	// Last are the last lines of the log that say something, at most a
	// few, for messages and the report (see internal/proclog).
	Last []string `json:"last,omitempty"`
	// Text is the log as kept, which the results folder's file holds.
	Text []byte `json:"-"`
}
