//go:build race

package main

// raceDetector: this test binary runs under the race detector, which
// slows hammer several times over (see the bounds that use it).
const raceDetector = true
