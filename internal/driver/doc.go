// Package driver is the race engine's coordinator. RaceAll races a plan,
// one scenario after the other on one stack, into the records of a
// results folder and merged latency histograms; Race runs one race: it
// starts worker processes (the hammer binary re-executed as a hidden
// worker, whose body is internal/worker), waits until every worker is
// connected and warmed up, releases all contenders with one go signal,
// collects the attempt records they stream back, lets the race's fault
// (internal/fault) strike, and reads the ledger back.
//
// The coordinator shares no code with the workers but the messages of
// internal/wire, which it sends and reads as JSON lines over each worker's
// stdin and stdout (or through the worker's agent, internal/agent).
package driver
