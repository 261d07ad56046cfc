package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTokenCommand: hammer token prints a fresh URL-safe token of 32
// random bytes each time, and takes no argument.
func TestTokenCommand(t *testing.T) {
	seen := map[string]bool{}
	for range 3 {
		code, out, stderr := hammer(t, "token")
		tok := strings.TrimSuffix(out, "\n")
		if code != exitOK || stderr != "" || !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(tok) || seen[tok] {
			t.Fatalf("hammer token: exit %d, stdout %q, stderr %q; want a fresh 43-character URL-safe token", code, out, stderr)
		}
		seen[tok] = true
	}
	code, _, stderr := hammer(t, "token", "extra")
	if code != exitUsage || stderr != "hammer token: unexpected argument \"extra\" (see hammer token -h)\n" {
		t.Errorf("hammer token extra: exit %d, stderr %q", code, stderr)
	}
}

// TestTokenSources: --token-file reads the first line of its file; --token
// works but warns, once, that it shows in the process list; neither
// prints the token.
func TestTokenSources(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (1.0s in a -short run): skipped by -short (make test runs it)")
	}
	const tok = "token-sources-test-0123456789"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("  "+tok+"\r\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readTokenFile(file)
	if err != nil || got != tok {
		t.Fatalf("readTokenFile = %q, %v; want %q", got, err, tok)
	}
	empty, long := filepath.Join(t.TempDir(), "empty"), filepath.Join(t.TempDir(), "long")
	_ = os.WriteFile(empty, []byte("\n\n"), 0o600)
	_ = os.WriteFile(long, make([]byte, maxTokenFile+1), 0o600)
	for path, want := range map[string]string{empty: "the first line is empty", long: "larger than"} {
		if _, err := readTokenFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readTokenFile(%s) = %v, want it refused saying %q", filepath.Base(path), err, want)
		}
	}
	// Nobody listens on port 1: each agent gives up after its join timeout.
	tests := []struct {
		name string
		args []string
		warn bool
	}{
		{name: "token file", args: []string{"--token-file", file}},
		{name: "token flag", args: []string{"--token", tok}, warn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := hammer(t, append([]string{"agent", "--join", "127.0.0.1:1", "--join-timeout", "100ms"}, tt.args...)...)
			if code != exitInfra || !strings.Contains(stderr, "no coordinator at 127.0.0.1:1") {
				t.Fatalf("exit %d, stderr %q; want the token taken and no coordinator found (exit %d)", code, stderr, exitInfra)
			}
			if warned := strings.Count(stderr, "can read --token in the process list"); warned != map[bool]int{true: 1}[tt.warn] {
				t.Errorf("stderr %q: the warning said %d times, want it %v", stderr, warned, tt.warn)
			}
			if strings.Contains(stderr, tok) {
				t.Errorf("stderr holds the token: %q", stderr)
			}
		})
	}
}
