package proclog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCap writes far more than the log keeps and checks that the first and
// last bytes are kept, whole lines after the cut, and the cut counted.
func TestCap(t *testing.T) {
	l := New(64, 128)
	var all strings.Builder
	for i := range 1000 {
		line := fmt.Sprintf("line %04d\n", i)
		all.WriteString(line)
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	out, cut := l.Bytes()
	if l.Written() != int64(all.Len()) {
		t.Errorf("written %d, want %d", l.Written(), all.Len())
	}
	text := string(out)
	if !strings.HasPrefix(text, all.String()[:64]) {
		t.Errorf("the log does not start with the first 64 bytes: %q", text[:80])
	}
	if !strings.HasSuffix(text, "line 0999\n") {
		t.Errorf("the log does not end with the last line: %q", text[len(text)-40:])
	}
	marker := fmt.Sprintf("[hammer] %d bytes cut here", cut)
	if !strings.Contains(text, marker) {
		t.Errorf("no %q in the log:\n%s", marker, text)
	}
	// After the marker the tail starts at a line's start, and what is
	// kept and what was cut add up to what was written.
	after := text[strings.Index(text, "bytes\n")+len("bytes\n"):]
	if !strings.HasPrefix(after, "line ") || len(after) > 128 {
		t.Errorf("tail %q: want whole lines, at most 128 bytes", after)
	}
	if kept := int64(64 + len(after)); kept+cut != l.Written() {
		t.Errorf("kept %d + cut %d != written %d", kept, cut, l.Written())
	}
}

// TestSmallLogWhole: a log within its limits is kept as written.
func TestSmallLogWhole(t *testing.T) {
	l := New(8, 64)
	_, _ = l.Write([]byte("hello, world\nsecond line\n"))
	out, cut := l.Bytes()
	if string(out) != "hello, world\nsecond line\n" || cut != 0 {
		t.Errorf("got %q, cut %d", out, cut)
	}
}

// TestLast: the lines quoted from the end of what real runtimes print
// when a process fails.
func TestLast(t *testing.T) {
	tests := []struct {
		name, out string
		want      []string
	}{
		{"node crash", `[hammer] replica 0 started (pid 12, port 4000)
listening on 4000
/srv/seatd/server.js:41
      throw new Error('boom: seat table missing');
      ^

Error: boom: seat table missing
    at Server.<anonymous> (/srv/seatd/server.js:41:13)
    at Server.emit (node:events:517:28)
    at parserOnIncoming (node:_http_server:1107:12)
    at HTTPParser.parserOnHeadersComplete (node:_http_common:119:17)
    at HTTPParser.execute (node:_http_common:1:1)

Node.js v20.20.2
`, []string{"Error: boom: seat table missing", "at Server.<anonymous> (/srv/seatd/server.js:41:13)",
			"at Server.emit (node:events:517:28)", "at parserOnIncoming (node:_http_server:1107:12)",
			"at HTTPParser.parserOnHeadersComplete (node:_http_common:119:17)"}},
		{"go panic", "serving on 4000\npanic: runtime error: index out of range [3] with length 3\n\ngoroutine 7 [running]:\nmain.handle(...)\n\t/srv/main.go:12 +0x1d\n",
			[]string{"panic: runtime error: index out of range [3] with length 3", "goroutine 7 [running]:", "main.handle(...)", "/srv/main.go:12 +0x1d"}},
		{"500s logged", "listening\nreserve failed: relation \"sales\" does not exist\nreserve failed: relation \"sales\" does not exist\nreserve failed: relation \"sales\" does not exist\n",
			[]string{"listening", `reserve failed: relation "sales" does not exist`}},
		{"node pg error", "listening\nerror: relation \"sales\" does not exist\n    at /srv/node_modules/pg/lib/client.js:526:17\n",
			[]string{`error: relation "sales" does not exist`, "at /srv/node_modules/pg/lib/client.js:526:17"}},
		{"nothing said", "\n\n[hammer] replica 0 started (pid 1, port 2)\n", nil},
		{"plain lines", "a\nb\nc\nd\ne\nf\ng\n", []string{"c", "d", "e", "f", "g"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(1<<10, 1<<10)
			_, _ = l.Write([]byte(tt.out))
			if got := l.Last(5); !slices.Equal(got, tt.want) {
				t.Errorf("Last(5) =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
