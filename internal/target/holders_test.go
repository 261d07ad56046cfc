package target

import "testing"

func TestParseSet(t *testing.T) {
	tests := []struct {
		name, line string
		port       int
		token      string
		ok         bool
	}{
		{"go-redis", `1700000000.123456 [0 127.0.0.1:50312] "set" "k:lock" "tok-1" "px" "150" "nx"`, 50312, "tok-1", true},
		{"node-redis", `1700000000.123456 [0 127.0.0.1:41000] "SET" "k:lock" "a\"b" "NX" "PX" "150"`, 41000, `a"b`, true},
		{"other key", `1700000000.1 [0 127.0.0.1:1] "set" "other" "t"`, 0, "", false},
		{"get", `1700000000.1 [0 127.0.0.1:1] "get" "k:lock"`, 0, "", false},
		{"lua", `1700000000.1 [0 lua] "del" "k:lock"`, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port, token, ok := parseSet(tt.line, "k:lock")
			if port != tt.port || token != tt.token || ok != tt.ok {
				t.Errorf("parseSet = %d, %q, %v; want %d, %q, %v", port, token, ok, tt.port, tt.token, tt.ok)
			}
		})
	}
}
