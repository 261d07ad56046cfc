package replicas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/sockets"
)

// ErrService matches the error of Start when the service, as it was set
// up, keeps a replica from getting ready, which no wait or retry mends:
// the replica answers its ready path on a port of its own, not the one it
// was given, or it exits with a status of its own before it is ready.
// A replica that is not ready in time, is killed by a signal or finds its
// port taken does not match: the host may be to blame.
var ErrService = errors.New("the service as set up cannot start")

// serviceError is an error of Start that matches ErrService.
type serviceError struct{ msg string }

func (e *serviceError) Error() string        { return e.msg }
func (e *serviceError) Is(target error) bool { return target == ErrService }

// StartError is Start's error: why a replica did not get ready, and what
// every replica printed until they were stopped, which the error quotes
// only the end of.
type StartError struct {
	Err  error
	Logs []history.ReplicaLog
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// rank orders Start's errors: the service's own first, then the others,
// then none.
func rank(err error) int {
	switch {
	case errors.Is(err, ErrService):
		return 0
	case err != nil:
		return 1
	}
	return 2
}

// strayFor is how long a replica must answer its ready path on another
// port, and listen on none of its own, before Start calls its port wrong:
// a service may open another port (metrics, an admin page) before its
// own, and one that answers any path there must have time to open its
// own. strayEvery is how often that is looked at. wrongFor is how long
// its ready path must answer the same definite status before Start calls
// the path wrong: longer, for a service that listens first and adds its
// routes once connected.
const (
	strayFor   = 3 * time.Second
	strayEvery = 250 * time.Millisecond
	wrongFor   = 5 * time.Second
)

// answeredByReplica checks, once r's port answered its ready path, that r
// is what listens on it. Between freePort and the replica's own bind, or
// while a crashed replica is down, another process (a replica of another
// race) may take the port and answer the same path: the race would then
// send its requests, with the ids every race uses, to a stranger selling
// from another schema, and tell its answers for ours. The error says the
// address is in use, so that startOne tries another port.
func (s *Set) answeredByReplica(r *replica) error {
	if s.listensOwn(r) {
		return nil
	}
	return fmt.Errorf("replica %d (%s): port %d answered %s, but no process of the replica listens on it (address already in use by another)",
		r.index, s.spec.Command[0], r.port, s.spec.Ready)
}

// awaitReady polls r's ready path until it answers 200 (from r itself),
// r exits, the timeout passes or ctx ends. A replica that answers on a
// port of its own instead, answers its path with another definite status
// all along (a path it does not serve), or exits with a status of its
// own, fails at once with an error that matches ErrService.
func (s *Set) awaitReady(ctx context.Context, r *replica) error {
	url := fmt.Sprintf("http://127.0.0.1:%d%s", r.port, s.spec.Ready)
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(s.spec.ReadyTimeout)
	last := "no answer"
	var elsewhere stray
	var wrong steady // the definite status the ready path answers
	for time.Now().Before(deadline) {
		status, err := get(client, url)
		if err == nil {
			if status == http.StatusOK {
				return s.answeredByReplica(r)
			}
			last = "status " + strconv.Itoa(status)
		}
		if wrong.held(definite(status), time.Now(), wrongFor) && s.listensOwn(r) {
			return &serviceError{fmt.Sprintf("replica %d (%s) answers its ready path, GET %s, with status %d, not 200: the ready path must answer 200 once the replica is ready%s",
				r.index, s.spec.Command[0], s.spec.Ready, status, said(r.log))}
		}
		if err := s.lookElsewhere(r, &elsewhere); err != nil {
			return err
		}
		select {
		case <-r.exited():
			return s.exitedEarly(r)
		case <-ctx.Done():
			return fmt.Errorf("interrupted while replica %d started: %w", r.index, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	listens := ""
	if ports, _ := sockets.Listening(r.pid()); len(ports) > 0 {
		listens = fmt.Sprintf("; it listens on %s", portList(ports))
	}
	return fmt.Errorf("replica %d (%s) not ready within ready_timeout %s (GET %s: %s%s)%s",
		r.index, s.spec.Command[0], s.spec.ReadyTimeout, s.spec.Ready, last, listens, said(r.log))
}

// get asks url and returns the status, reading the body (to a bound) so
// that the connection ends cleanly: a service sees no reset it would log
// as its own error.
func get(client *http.Client, url string) (int, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// steady follows a value a replica shows again and again (a port it
// answers on, a status it answers with): which, and since when.
type steady struct {
	v     int
	since time.Time
}

// held notes v (0: nothing to follow) at now and reports whether the same
// v, not 0, has been seen for d.
func (st *steady) held(v int, now time.Time, d time.Duration) bool {
	if v == 0 || v != st.v {
		st.v, st.since = v, now
		return false
	}
	return now.Sub(st.since) >= d
}

// listensOwn reports whether r itself listens on its port, so that an
// answer there is its own (or /proc cannot tell), not a stranger's that
// took the port first.
func (s *Set) listensOwn(r *replica) bool {
	ok, checked := sockets.ListensOn(r.pid(), r.port)
	return ok || !checked
}

// definite is status when it says the path is wrong rather than not
// ready yet (a success other than 200, a redirect, or a client error
// other than a timeout or a rate limit), else 0. No answer and server
// errors (503 while warming up) are left to the ready timeout.
func definite(status int) int {
	switch {
	case status == 0, status == http.StatusOK, status >= 500:
		return 0
	case status == http.StatusRequestTimeout, status == http.StatusTooEarly, status == http.StatusTooManyRequests:
		return 0
	}
	return status
}

// exitedEarly is the error of replica r, which exited before it was
// ready: the service's own (ErrService) when it ended with a status, not
// by a signal (nor with a status of 128 or more, as a shell or npm reports
// a child a signal ended), and not because its port was taken.
func (s *Set) exitedEarly(r *replica) error {
	msg := fmt.Sprintf("replica %d (%s) %s before it was ready%s", r.index, s.spec.Command[0], r.exit(), said(r.log))
	r.mu.Lock()
	status := r.status
	r.mu.Unlock()
	if status < 0 || status >= 128 || portTaken(errors.New(msg)) {
		return errors.New(msg)
	}
	return &serviceError{msg}
}

// stray follows the port other than its own on which a replica answers
// its ready path, looked at when next comes.
type stray struct {
	port steady
	next time.Time
}

// lookElsewhere looks, every strayEvery, at the ports replica r listens
// on. When r listens on none of its own and has answered its ready path on
// the same other port for strayFor, it returns the error (ErrService).
func (s *Set) lookElsewhere(r *replica, st *stray) error {
	now := time.Now()
	if now.Before(st.next) {
		return nil
	}
	st.next = now.Add(strayEvery)
	ports, checked := sockets.Listening(r.pid())
	port := 0
	if checked && !slices.Contains(ports, r.port) {
		port = answersReady(ports, s.spec.Ready)
	}
	if st.port.held(port, now, strayFor) {
		given, fix := "", "the port it is given"
		if s.spec.PortEnv != "" {
			given, fix = " in "+s.spec.PortEnv, "the port in "+s.spec.PortEnv
		}
		return &serviceError{fmt.Sprintf("replica %d (%s) answers GET %s on port %d, not on port %d that hammer gave it%s: the service must listen on %s",
			r.index, s.spec.Command[0], s.spec.Ready, port, r.port, given, fix)}
	}
	return nil
}

// answersReady is the first of ports on which the loopback answers GET
// path with 200, or 0.
func answersReady(ports []int, path string) int {
	client := &http.Client{Timeout: 300 * time.Millisecond}
	for _, p := range ports {
		if status, err := get(client, fmt.Sprintf("http://127.0.0.1:%d%s", p, path)); err == nil && status == http.StatusOK {
			return p
		}
	}
	return 0
}

// portList reads "port 3000" or "ports 3000, 9229".
func portList(ports []int) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	if len(s) == 1 {
		return "port " + s[0]
	}
	return "ports " + strings.Join(s, ", ")
}
