package fault

// duplicate sends every request twice at once with the same request id.
// Its row of the fault table (Copies: 2) is all it takes: the workers
// send each request as many times as the row says.
type duplicate struct{ Base }
