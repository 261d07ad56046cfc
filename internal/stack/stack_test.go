package stack

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseKind(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Kind
		wantErr bool
	}{
		{name: "empty means auto", in: "", want: Auto},
		{name: "auto", in: "auto", want: Auto},
		{name: "external", in: "external", want: External},
		{name: "docker", in: "docker", want: Docker},
		{name: "local", in: "local", want: Local},
		{name: "case and space", in: " Local ", want: Local},
		{name: "unknown", in: "kubernetes", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseKind(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrBadConfig) {
					t.Fatalf("ParseKind(%q) error = %v, want ErrBadConfig", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseKind(%q) = %q, %v, want %q, nil", tt.in, got, err, tt.want)
			}
		})
	}
}

// checkOneSentinel fails unless err wraps want and not the other sentinel,
// and reads as one line without the secret.
func checkOneSentinel(t *testing.T, err, want error, secret string) {
	t.Helper()
	other := ErrUnavailable
	if want == ErrUnavailable {
		other = ErrBadConfig
	}
	switch {
	case err == nil:
		t.Fatalf("error = nil, want %v", want)
	case !errors.Is(err, want):
		t.Fatalf("error %q does not wrap %v", err, want)
	case errors.Is(err, other):
		t.Fatalf("error %q wraps both %v and %v", err, want, other)
	case strings.ContainsAny(err.Error(), "\r\n"):
		t.Fatalf("error %q is more than one line", err)
	case secret != "" && strings.Contains(err.Error(), secret):
		t.Fatalf("error %q shows the password %q", err, secret)
	}
}

func TestStartBadConfig(t *testing.T) {
	const goodRedis = "redis://127.0.0.1:1/0"
	const goodPG = "postgres://hammer@127.0.0.1:1/hammer"
	tests := []struct {
		name string
		opts Options
		want string // a fragment of the message
	}{
		{name: "unknown kind", opts: Options{Kind: "cloud"}, want: "unknown stack kind"},
		{name: "only redis url", opts: Options{RedisURL: goodRedis}, want: "only the Redis URL"},
		{name: "only pg url", opts: Options{Kind: External, PGURL: goodPG}, want: "only the PostgreSQL URL"},
		{name: "external without urls", opts: Options{Kind: External}, want: "needs a Redis URL"},
		{name: "redis scheme", opts: Options{Kind: External, RedisURL: "http://u:s3cret@h:6379", PGURL: goodPG}, want: "malformed Redis URL"},
		{name: "redis port", opts: Options{Kind: External, RedisURL: "redis://u:s3cret@h:port/0", PGURL: goodPG}, want: "malformed Redis URL"},
		{name: "redis db", opts: Options{RedisURL: "redis://:s3cret@h:6379/x", PGURL: goodPG}, want: "malformed Redis URL"},
		{name: "pg port", opts: Options{Kind: External, RedisURL: goodRedis, PGURL: "postgres://u:s3cret@h:port/db"}, want: "malformed PostgreSQL URL"},
		{name: "pg sslmode", opts: Options{RedisURL: goodRedis, PGURL: "postgres://u:s3cret@h/db?sslmode=sometimes"}, want: "malformed PostgreSQL URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Start(context.Background(), tt.opts)
			t.Log(err)
			checkOneSentinel(t, err, ErrBadConfig, "s3cret")
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// silentPort returns a loopback port that accepts connections and never
// answers, the worst case for a deadline.
func silentPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

func TestStartExternalUnreachable(t *testing.T) {
	t.Parallel()
	refused, silent := closedPort(t), silentPort(t)
	redisURL := func(port int) string { return "redis://:s3cret@127.0.0.1:" + strconv.Itoa(port) + "/0" }
	pgURL := func(port int) string { return "postgres://hammer:s3cret@127.0.0.1:" + strconv.Itoa(port) + "/hammer" }
	tests := []struct {
		name     string
		kind     Kind
		redisURL string
		pgURL    string
		want     string
	}{
		{name: "redis refuses", kind: External, redisURL: redisURL(refused), pgURL: pgURL(refused), want: "redis at 127.0.0.1:" + strconv.Itoa(refused)},
		{name: "redis silent", kind: External, redisURL: redisURL(silent), pgURL: pgURL(refused), want: "redis at 127.0.0.1:" + strconv.Itoa(silent)},
		{name: "auto with urls", kind: Auto, redisURL: redisURL(refused), pgURL: pgURL(refused), want: "refused the connection: nothing listens there"},
		{name: "auto with a silent redis", kind: Auto, redisURL: redisURL(silent), pgURL: pgURL(refused), want: "did not answer PING"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			begin := time.Now()
			_, err := Start(context.Background(), Options{Kind: tt.kind, RedisURL: tt.redisURL, PGURL: tt.pgURL})
			if took := time.Since(begin); took > 10*time.Second {
				t.Errorf("Start took %s, want < 10s", took)
			}
			t.Logf("after %s: %v", time.Since(begin).Round(time.Millisecond), err)
			checkOneSentinel(t, err, ErrUnavailable, "s3cret")
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestStartDockerWithoutEngine(t *testing.T) {
	tests := []struct {
		name       string
		dockerHost string
	}{
		{name: "refused tcp", dockerHost: "tcp://127.0.0.1:" + strconv.Itoa(closedPort(t))},
		{name: "missing socket", dockerHost: "unix:///nonexistent/docker.sock"},
		{name: "malformed", dockerHost: "::not a host::"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DOCKER_HOST", tt.dockerHost)
			begin := time.Now()
			_, err := Start(context.Background(), Options{Kind: Docker})
			if took := time.Since(begin); took > 5*time.Second {
				t.Errorf("Start took %s, want < 5s", took)
			}
			t.Log(err)
			checkOneSentinel(t, err, ErrUnavailable, "")
			if !strings.Contains(err.Error(), "no Docker engine") {
				t.Fatalf("error %q, want it to say there is no Docker engine", err)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	errNo := unavailablef("not here")
	ok := func() error { return nil }
	no := func() error { return errNo }
	tests := []struct {
		name      string
		opts      Options
		docker    func() error
		local     func() error
		want      Kind
		wantErr   error
		wantInMsg []string
	}{
		{name: "urls mean external", opts: Options{RedisURL: "redis://h", PGURL: "postgres://h"}, docker: ok, local: ok, want: External},
		{name: "docker first", docker: ok, local: ok, want: Docker},
		{name: "local without docker", docker: no, local: ok, want: Local},
		{name: "explicit local", opts: Options{Kind: Local}, docker: ok, local: ok, want: Local},
		{name: "explicit docker", opts: Options{Kind: Docker}, docker: no, local: ok, want: Docker},
		{name: "local ignores urls", opts: Options{Kind: Local, RedisURL: "redis://h", PGURL: "postgres://h"}, docker: ok, local: ok, want: Local},
		{name: "docker ignores one url", opts: Options{Kind: Docker, RedisURL: "redis://h"}, docker: ok, local: ok, want: Docker},
		{name: "one url with auto", opts: Options{PGURL: "postgres://h"}, docker: ok, local: ok, wantErr: ErrBadConfig},
		{
			name: "nothing", docker: no, local: no, wantErr: ErrUnavailable,
			wantInMsg: []string{"--redis-url", "HAMMER_REDIS_URL", "Docker engine", "apt-get install redis-server postgresql"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := finders{
				docker: func(context.Context) error { return tt.docker() },
				local:  tt.local,
			}
			if tt.opts.Log == nil {
				tt.opts.Log = &strings.Builder{}
			}
			got, err := f.resolve(context.Background(), tt.opts)
			if tt.wantErr != nil {
				t.Log(err)
				checkOneSentinel(t, err, tt.wantErr, "")
				for _, frag := range tt.wantInMsg {
					if !strings.Contains(err.Error(), frag) {
						t.Errorf("error %q, want it to contain %q", err, frag)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("resolve() = %q, %v, want %q, nil", got, err, tt.want)
			}
		})
	}
}

func TestOnFreePort(t *testing.T) {
	errOther := errors.New("other")
	tests := []struct {
		name      string
		results   []error
		wantCalls int
		wantErr   error
	}{
		{name: "first try", results: []error{nil}, wantCalls: 1},
		{name: "port taken once", results: []error{errPortInUse, nil}, wantCalls: 2},
		{name: "port always taken", results: []error{errPortInUse, errPortInUse, errPortInUse, nil}, wantCalls: portAttempts, wantErr: errPortInUse},
		{name: "other error not retried", results: []error{errOther, nil}, wantCalls: 1, wantErr: errOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			port, err := onFreePort(func(int) error {
				calls++
				return tt.results[calls-1]
			})
			if calls != tt.wantCalls || !errors.Is(err, tt.wantErr) || (err == nil && port == 0) {
				t.Fatalf("onFreePort: %d calls, port %d, error %v; want %d calls, error %v", calls, port, err, tt.wantCalls, tt.wantErr)
			}
		})
	}
}
