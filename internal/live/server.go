package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultGrace is how long the server stays up once the race ended, for
// the page to take the verdict and fetch the report, unless every
// browser left sooner: hammer never waits longer for one.
const DefaultGrace = 2 * time.Second

// writeTimeout bounds one write to a browser: one that stops reading is
// dropped instead of holding its stream open.
const writeTimeout = 10 * time.Second

// The reports the server hands out from the results folder, by name.
const (
	ReportHTML = "report.html"
	ReportMD   = "report.md"
)

// ServerOptions configure a Server.
type ServerOptions struct {
	// Listener is where to serve; the server closes it.
	Listener net.Listener
	Hub      *Hub
	Metrics  *Metrics
	// Dir is the results folder, whose report the page links to at the end.
	Dir string
	// Grace is how long Close waits for browsers (DefaultGrace when zero).
	Grace time.Duration
	// AnyHost accepts requests whatever host they name; without it only
	// loopback names (localhost, 127.0.0.1, [::1]) are served, so that a
	// web page elsewhere cannot read the race through DNS rebinding.
	AnyHost bool
}

// Server serves the live page (/), its event stream (/events), the
// metrics (/metrics) and, once written, the results folder's report
// (/report.html or /report.md) on one address.
type Server struct {
	o       ServerOptions
	srv     *http.Server
	page    []byte
	served  chan struct{}
	closing chan struct{} // closed when Close starts waiting out the grace
	once    sync.Once
}

// NewServer returns a server for o; Start starts it.
func NewServer(o ServerOptions) *Server {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	s := &Server{o: o, page: Page(), served: make(chan struct{}), closing: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("GET /events", s.serveEvents)
	mux.Handle("GET /metrics", o.Metrics.Handler())
	mux.HandleFunc("GET /"+ReportHTML, s.serveReport(ReportHTML, "text/html; charset=utf-8"))
	mux.HandleFunc("GET /"+ReportMD, s.serveReport(ReportMD, "text/markdown; charset=utf-8"))
	s.srv = &http.Server{Handler: s.checkHost(mux), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 30 * time.Second,
		MaxHeaderBytes: 16 << 10}
	return s
}

// URL is the page's address; on every interface (0.0.0.0, ::), its
// loopback one.
func (s *Server) URL() string {
	addr := s.o.Listener.Addr().String()
	if a, ok := s.o.Listener.Addr().(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return "http://" + addr + "/"
}

// Start serves in the background until Close.
func (s *Server) Start() {
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(s.o.Listener) // ErrServerClosed after Close
	}()
}

// Report is the server's path of the results folder's report, report.html
// if it was written, else report.md, else "".
func (s *Server) Report() string {
	for _, name := range []string{ReportHTML, ReportMD} {
		if fi, err := os.Stat(filepath.Join(s.o.Dir, name)); err == nil && fi.Mode().IsRegular() {
			return "/" + name
		}
	}
	return ""
}

// Close ends the server once the hub was closed: it waits until every
// browser left, at most the grace, then closes every connection.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		deadline := time.Now().Add(s.o.Grace)
		for s.o.Hub.Clients() > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}
		<-s.served
	})
}

// checkHost refuses requests naming a host other than a loopback one,
// unless AnyHost.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		host = strings.Trim(host, "[]")
		ip := net.ParseIP(host)
		if !s.o.AnyHost && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "hammer's live page answers to localhost only", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// servePage serves the page, which may load nothing from elsewhere.
func (s *Server) servePage(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "+
		"connect-src 'self'; img-src data: blob:; frame-ancestors 'none'")
	_, _ = w.Write(s.page)
}

// serveReport serves one report of the results folder, if written.
func (s *Server) serveReport(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(filepath.Join(s.o.Dir, name))
		if err != nil {
			http.Error(w, name+" is not written yet", http.StatusNotFound)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			http.Error(w, name+" is not a file", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-store")
		http.ServeContent(w, r, name, fi.ModTime(), f)
	}
}

// serveEvents streams the hub's messages to one browser as server-sent
// events: what it missed first, then each message as published, then
// the final ones; it then holds the stream open until the browser
// closes it or the grace ends, so that the page can fetch the report.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	c, replay, ok := s.o.Hub.Subscribe()
	if !ok {
		http.Error(w, "the race is over, or too many browsers follow it", http.StatusServiceUnavailable)
		return
	}
	defer s.o.Hub.Unsubscribe(c)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	st := &stream{w: w, rc: http.NewResponseController(w), c: c}
	if st.raw("retry: 3000\n\n") != nil {
		return
	}
	for _, m := range replay {
		if st.send(m) != nil {
			return
		}
	}
	if st.flush() != nil {
		return
	}
	for {
		select {
		case m, open := <-c.C():
			if !open {
				s.finish(r.Context(), st)
				return
			}
			if st.send(m) != nil {
				return
			}
			if len(c.C()) == 0 && st.flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// finish sends the final messages and holds the stream until the
// browser closes it or the grace is over.
func (s *Server) finish(ctx context.Context, st *stream) {
	for _, m := range s.o.Hub.Final() {
		if st.send(m) != nil {
			return
		}
	}
	if st.flush() != nil {
		return
	}
	t := time.NewTimer(s.o.Grace)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// stream writes server-sent events to one browser.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	c       *Client
	dropped int64 // as last told
}

// send writes m, then how many messages the client lost if that grew.
func (st *stream) send(m Message) error {
	if err := st.raw(fmt.Sprintf("event: %s\ndata: %s\n\n", m.Type, m.Data)); err != nil {
		return err
	}
	if d := st.c.Dropped(); d != st.dropped {
		st.dropped = d
		return st.raw(fmt.Sprintf("event: %s\ndata: {\"dropped\":%d}\n\n", TypeDropped, d))
	}
	return nil
}

// raw writes text within the write timeout.
func (st *stream) raw(text string) error {
	if err := st.rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	_, err := st.w.Write([]byte(text))
	return err
}

// flush sends what was written.
func (st *stream) flush() error { return st.rc.Flush() }
