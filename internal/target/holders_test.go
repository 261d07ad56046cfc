package target

import "testing"

// TestLockState follows a lock through a MONITOR stream: failed SET NX
// while held, a release, an expiry, another key, a script's own DEL.
func TestLockState(t *testing.T) {
	lines := []struct {
		line  string
		port  int
		token string
	}{
		{`+100.000 [0 127.0.0.1:5001] "set" "k:lock" "a" "px" "150" "nx"`, 5001, "a"},
		{`+100.001 [0 127.0.0.1:5002] "SET" "k:lock" "b" "NX" "PX" "150"`, 0, ""}, // held by a
		{`+100.002 [0 127.0.0.1:5002] "set" "other" "b" "px" "150" "nx"`, 0, ""},
		{`+100.003 [0 127.0.0.1:5001] "evalsha" "abc" "1" "k:lock" "a"`, 0, ""},
		{`+100.003 [0 lua] "del" "k:lock"`, 0, ""},
		{`+100.004 [0 127.0.0.1:5002] "SET" "k:lock" "b\"q" "NX" "PX" "150"`, 5002, `b"q`},
		{`+100.100 [0 127.0.0.1:5003] "set" "k:lock" "c" "px" "150" "nx"`, 0, ""},     // b still within its TTL
		{`+100.200 [0 127.0.0.1:5003] "set" "k:lock" "c" "px" "150" "nx"`, 5003, "c"}, // b expired at 100.154
		{`+100.201 [0 127.0.0.1:5004] "get" "k:lock"`, 0, ""},
		{`+100.202 [0 127.0.0.1:5004] "set" "k:lock" "d"`, 0, ""},                 // not a lock taking: no NX
		{`+101.000 [0 [::1]:5005] "set" "k:lock" "e" "px" "150" "nx"`, 5005, "e"}, // an IPv6 client, after c expired
	}
	var st lockState
	for i, l := range lines {
		port, token, ok := st.step(l.line, "k:lock")
		if ok != (l.token != "") || port != l.port || token != l.token {
			t.Errorf("line %d: step = %d, %q, %v; want %d, %q", i, port, token, ok, l.port, l.token)
		}
	}
}
