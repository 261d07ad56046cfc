package agent

import (
	"io"
	"net"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/childproc"
)

// TestSignal: a signal the agent sent to its worker is answered as sent;
// one to a worker that has ended is an error, not a silent success.
func TestSignal(t *testing.T) {
	ln, _ := listen(t, "v1")
	done := join(ln.Addr(), nil)
	a, w := acceptOne(t, ln)
	go func() { _, _ = io.Copy(io.Discard, w.Output()) }()
	if err := w.Signal(syscall.SIGCONT); err != nil {
		t.Errorf("SIGCONT to a running worker: %v, want nil", err)
	}
	w.CloseInput()
	if e := w.Wait(); e.Code != 0 {
		t.Fatalf("cat ended with %+v, want exit 0", e)
	}
	if err := w.Signal(syscall.SIGSTOP); err == nil {
		t.Error("SIGSTOP to a worker that has ended: nil, want an error")
	}
	if err := w.Post(syscall.SIGCONT); err != nil {
		t.Errorf("Post: %v, want nil (the answer is not awaited)", err)
	}
	a.Close()
	if err := within(t, done, 5*time.Second); err != nil {
		t.Errorf("agent after goodbye: %v, want nil", err)
	}
}

// TestSignalAnswer: the agent answers a signal request with its number,
// and with why it could not send the signal to a worker that has ended.
func TestSignalAnswer(t *testing.T) {
	for _, tt := range []struct {
		name    string
		ended   bool
		wantErr bool
	}{{"running", false, false}, {"ended", true, true}} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "10")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			if tt.ended {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
			ours, theirs := net.Pipe()
			defer ours.Close()
			defer theirs.Close()
			c := &child{Piped: childproc.Piped{Cmd: cmd}, seq: 3}
			go func() {
				_ = c.signal(&link{conn: ours}, frame{Kind: kindSignal, Seq: 3, Sig: int(syscall.SIGCONT), T1: 7})
			}()
			f, err := (&link{conn: theirs}).recv(time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if f.Kind != kindSignaled || f.Seq != 3 || f.T1 != 7 || (f.Reason != "") != tt.wantErr {
				t.Errorf("answer %+v: want %s for request 7 of worker 3, a reason: %t", f, kindSignaled, tt.wantErr)
			}
		})
	}
}
