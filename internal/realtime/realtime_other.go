//go:build !linux

package realtime

import "errors"

// Supported reports whether this process may make its threads real-time:
// never outside Linux.
func Supported() bool { return false }

// Burst is one stretch of real-time scheduling; outside Linux there is
// none.
type Burst struct{}

// Start fails outside Linux: nothing is changed.
func Start() (*Burst, error) {
	return nil, errors.New("real-time start: Linux only")
}

// End does nothing outside Linux; it may be called on nil.
func (b *Burst) End() {}
