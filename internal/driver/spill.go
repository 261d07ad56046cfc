package driver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hammer-load/hammer/history"
)

// spill keeps the attempt records of an open-model race on disk while it
// runs, so that the coordinator's memory does not grow with the race's
// length (a soak at 1000 requests a second makes 60,000 records a minute),
// and reads them back once the race is over, in the order they came, for
// the verdict. The file is unlinked as soon as it is made: it goes with the
// process, whatever ends it.
type spill struct {
	f   *os.File
	w   *bufio.Writer
	enc *json.Encoder
	n   int
	// err is the first write that failed: the records cannot all be read
	// back, and the history is incomplete.
	err error
}

// newSpill makes the spill's file in the temporary directory.
func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "hammer-attempts-*.jsonl")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 256<<10)
	return &spill{f: f, w: w, enc: json.NewEncoder(w)}, nil
}

// add writes a, as history.jsonl holds it.
func (s *spill) add(a *history.Attempt) {
	if s.err != nil {
		return
	}
	if err := s.enc.Encode(a); err != nil {
		s.err = err
		return
	}
	s.n++
}

// all appends every record added to dst, closes the spill and returns
// dst; an error says the records could not all be kept.
func (s *spill) all(dst []history.Attempt) ([]history.Attempt, error) {
	defer s.f.Close()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err == nil {
		_, s.err = s.f.Seek(0, io.SeekStart)
	}
	if s.err != nil {
		return dst, fmt.Errorf("the attempt records could not be kept on disk during the race: %w", s.err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(s.f, 256<<10))
	dst = slices.Grow(dst, s.n)
	for range s.n {
		var a history.Attempt
		if err := dec.Decode(&a); err != nil {
			return dst, fmt.Errorf("the attempt records kept on disk during the race could not be read back: %w", err)
		}
		dst = append(dst, a)
	}
	return dst, nil
}
