package relay

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestRelayForwards: an HTTP request through the relay reaches the
// upstream and its answer comes back, over one kept-alive connection.
func TestRelayForwards(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "seat "+r.URL.Path)
	}))
	defer srv.Close()
	r, err := Listen("127.0.0.1:0", strings.TrimPrefix(srv.URL, "http://"), []netip.Addr{netip.MustParseAddr("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	client := &http.Client{Timeout: 5 * time.Second}
	for _, path := range []string{"/1", "/2"} {
		resp, err := client.Get("http://" + r.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "seat "+path {
			t.Errorf("GET %s through the relay answered %q, want %q", path, b, "seat "+path)
		}
	}
}

// TestRelayPassesTheEnd: an upstream that answers and closes is seen
// closing by the client, and one that cannot be reached closes the
// client's connection: neither leaves the client waiting.
func TestRelayPassesTheEnd(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		c, err := up.Accept()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "got "+line)
		c.Close()
	}()
	r, err := Listen("127.0.0.1:0", up.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "hello\n")
	b, err := io.ReadAll(c) // until the upstream's close reaches us
	if err != nil || string(b) != "got hello\n" {
		t.Errorf("read %q, %v; want %q and the end of the stream", b, err, "got hello\n")
	}

	addr := up.Addr().String()
	up.Close() // nothing listens there any more
	gone, err := Listen("127.0.0.1:0", addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	c2, err := net.Dial("tcp", gone.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	_ = c2.SetDeadline(time.Now().Add(5 * time.Second))
	if n, err := c2.Read(make([]byte, 1)); err == nil {
		t.Errorf("read %d bytes from a relay whose upstream is gone, want the connection closed", n)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("a relay whose upstream is gone left the client waiting: %v", err)
	}
}

// TestRelayClose: Close ends the connections in progress and returns
// once every one is closed; the port refuses new ones.
func TestRelayClose(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := up.Accept()
		if err == nil {
			accepted <- c // held open, never answered
		}
	}()
	r, err := Listen("127.0.0.1:0", up.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var held net.Conn
	select {
	case held = <-accepted:
		defer held.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("the relay did not connect to its upstream")
	}
	r.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("a connection read after Close, want it closed")
	}
	_ = held.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := held.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the upstream's end read %v after Close, want EOF", err)
	}
	if c, err := net.DialTimeout("tcp", r.Addr(), time.Second); err == nil {
		c.Close()
		t.Error("the relay's port still accepts after Close")
	}
}

// TestRelayRefusesStrangers: a relay that serves some hosts closes a
// connection from any other before its upstream hears of it.
func TestRelayRefusesStrangers(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := up.Accept(); err == nil {
			reached <- struct{}{}
			c.Close()
		}
	}()
	r, err := Listen("127.0.0.1:0", up.Addr().String(), []netip.Addr{netip.MustParseAddr("10.0.0.7")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a stranger's connection read %v, want it closed (EOF)", err)
	}
	r.Close() // waits for its goroutines: nothing reached the upstream before
	select {
	case <-reached:
		t.Error("a stranger's connection reached the upstream")
	default:
	}
}

// BenchmarkRelay measures an HTTP round trip on loopback to a server
// directly and through a relay: the relay's cost per request.
func BenchmarkRelay(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"seat": 7}`)
	}))
	defer srv.Close()
	r, err := Listen("127.0.0.1:0", strings.TrimPrefix(srv.URL, "http://"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, bc := range []struct{ name, url string }{{"direct", srv.URL}, {"relayed", "http://" + r.Addr()}} {
		b.Run(bc.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			for b.Loop() {
				resp, err := client.Get(bc.url + "/")
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
