package redact

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestURLs(t *testing.T) {
	tests := []struct {
		name, url, msg, want string
	}{
		{name: "no password", url: "redis://u@h", msg: "bad redis://u@h", want: "bad redis://u@h"},
		{name: "password", url: "redis://u:pw1@h:x", msg: `parse "redis://u:pw1@h:x"`, want: `parse "redis://u:xxxxx@h:x"`},
		{name: "password without user", url: "redis://:s3cr3t@h:6379/0", msg: "auth s3cr3t failed", want: "auth xxxxx failed"},
		{name: "unescaped at sign", url: "postgres://u:p@ss@h", msg: "p%40ss", want: "xxxxx"},
		{name: "percent-encoded in the url", url: "postgres://u:p%40ss@h/db", msg: "as typed p%40ss, decoded p@ss", want: "as typed xxxxx, decoded xxxxx"},
		{name: "query-escaped", url: "postgres://u:a b&c@h", msg: "a+b%26c and a%20b&c", want: "xxxxx and xxxxx"},
		{name: "password parameter", url: "postgres://u@h/db?sslmode=disable&password=pq-9x", msg: "password=pq-9x&sslmode", want: "password=xxxxx&sslmode"},
		{name: "escaped password parameter", url: "postgres://u@h/db?password=a%2Fb", msg: "a/b or a%2Fb", want: "xxxxx or xxxxx"},
		{name: "keyword/value string", url: "host=h password=kv-77 dbname=d", msg: "host=h password=kv-77 dbname=d", want: "host=h password=xxxxx dbname=d"},
		{name: "quoted keyword/value", url: "host=h password='q 1'", msg: "pw q 1", want: "pw xxxxx"},
		{name: "malformed url", url: "redis://:mal-42@[bad", msg: `parse "redis://:mal-42@[bad": missing ']'`, want: `parse "redis://:xxxxx@[bad": missing ']'`},
		{name: "unescaped slash", url: "redis://u:s3cr3t/Zq7@h", msg: `invalid port ":s3cr3t" after host`, want: `invalid port ":xxxxx" after host`},
		{name: "short pieces kept", url: "redis://u:ab/cd@h", msg: "ab cd ab/cd", want: "ab cd xxxxx"},
		{name: "not a url", url: "--seats", msg: "--seats 10", want: "--seats 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := URLs(tt.url).String(tt.msg); got != tt.want {
				t.Fatalf("URLs(%q).String(%q) = %q, want %q", tt.url, tt.msg, got, tt.want)
			}
		})
	}
}

func TestPasswords(t *testing.T) {
	tests := []struct {
		name string
		pws  []string
		msg  string
		want string
	}{
		{name: "none", pws: nil, msg: "hello", want: "hello"},
		{name: "empty ignored", pws: []string{""}, msg: "hello", want: "hello"},
		{name: "longest first", pws: []string{"ab", "abcd"}, msg: "abcd ab", want: "xxxxx xxxxx"},
		{name: "every occurrence", pws: []string{"pw"}, msg: "pw pw", want: "xxxxx xxxxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Passwords(tt.pws...).String(tt.msg); got != tt.want {
				t.Fatalf("Passwords(%q).String(%q) = %q, want %q", tt.pws, tt.msg, got, tt.want)
			}
		})
	}
}

func TestNilRedactor(t *testing.T) {
	var r *Redactor
	var buf bytes.Buffer
	if got := r.String("s"); got != "s" {
		t.Errorf("String = %q, want %q", got, "s")
	}
	if w := r.Writer(&buf); w != &buf {
		t.Errorf("Writer wrapped %T although there is nothing to mask", w)
	}
}

func TestSecrets(t *testing.T) {
	tests := []struct {
		name, url string
		want      []string
	}{
		{name: "no password", url: "redis://127.0.0.1:6379/0", want: nil},
		{name: "userinfo", url: "redis://u:pw@h/0", want: []string{"pw"}},
		{name: "query", url: "postgres://u@h/d?password=q", want: []string{"q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Secrets(tt.url)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("Secrets(%q) = %q, want it to hold %q", tt.url, got, w)
				}
			}
			if len(tt.want) == 0 && len(got) > 0 {
				t.Errorf("Secrets(%q) = %q, want none", tt.url, got)
			}
		})
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := URLs("redis://:s3cr3t@h:1/0").Writer(&buf)
	msg := "dial redis://:s3cr3t@h:1/0: refused\n"
	n, err := w.Write([]byte(msg))
	if err != nil || n != len(msg) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(msg))
	}
	if got, want := buf.String(), "dial redis://:xxxxx@h:1/0: refused\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	if u, ok := w.(interface{ Unwrap() io.Writer }); !ok || u.Unwrap() != &buf {
		t.Errorf("Unwrap does not return the writer underneath")
	}
	failing := URLs("redis://:s3cr3t@h").Writer(errWriter{})
	if n, err := failing.Write([]byte("x")); n != 0 || err == nil {
		t.Errorf("Write to a failing writer = %d, %v; want 0 and the error", n, err)
	}
	if strings.Contains(buf.String(), "s3cr3t") {
		t.Errorf("secret written: %q", buf.String())
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }
