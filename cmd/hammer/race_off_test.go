//go:build !race

package main

// raceDetector: this test binary runs under the race detector (see
// race_on_test.go).
const raceDetector = false
