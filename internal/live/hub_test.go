package live

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func tick(run string, n int) Message {
	return newMessage(TypeTick, TickEvent{Run: run, T: float64(n), Attempts: int64(n)})
}

// TestHubNeverWaitsForAClient: a client that never reads does not hold
// up Publish; what does not fit its buffer is dropped and counted, for
// the client and the hub. A Publish that waited would never finish the
// loop, and the deadline fails the test instead of hanging it.
func TestHubNeverWaitsForAClient(t *testing.T) {
	var dropped atomic.Int64
	h := NewHub(4, func() { dropped.Add(1) })
	stuck, _, ok := h.Subscribe()
	if !ok {
		t.Fatal("subscribe refused")
	}
	const n = 10000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			h.Publish(tick("r", i), "r")
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a client that does not read")
	}
	if got := len(stuck.C()); got != 4 {
		t.Errorf("the stuck client holds %d messages, want its buffer of 4", got)
	}
	if got, want := stuck.Dropped(), int64(n-4); got != want {
		t.Errorf("client dropped %d, want %d", got, want)
	}
	if got, want := dropped.Load(), int64(n-4); got != want {
		t.Errorf("hub counted %d drops, want %d", got, want)
	}
}

// TestHubSlowClientDoesNotStarveAFastOne: one client stuck, another
// reading: the reader gets every message, in order, none dropped.
func TestHubSlowClientDoesNotStarveAFastOne(t *testing.T) {
	h := NewHub(8, nil)
	_, _, _ = h.Subscribe() // never reads
	fast, _, _ := h.Subscribe()
	const n = 2000
	var got []int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for m := range fast.C() {
			var ev TickEvent
			if err := json.Unmarshal(m.Data, &ev); err != nil {
				t.Error(err)
				return
			}
			got = append(got, ev.Attempts)
		}
	}()
	for i := range n {
		for len(fast.C()) == cap(fast.ch) { // the fast reader keeps up; give it the time
			time.Sleep(time.Microsecond)
		}
		h.Publish(tick("r", i), "r")
	}
	h.Close()
	wg.Wait()
	if len(got) != n || fast.Dropped() != 0 {
		t.Fatalf("fast client got %d of %d, dropped %d", len(got), n, fast.Dropped())
	}
	for i, v := range got {
		if v != int64(i) {
			t.Fatalf("message %d is tick %d: out of order", i, v)
		}
	}
}

// TestHubCloseDeliversFinal: the final messages are kept apart from the
// buffer, so a client whose buffer is full still gets the verdict.
func TestHubCloseDeliversFinal(t *testing.T) {
	h := NewHub(2, nil)
	c, _, _ := h.Subscribe()
	for i := range 5 {
		h.Publish(tick("r", i), "r")
	}
	verdict := newMessage(TypeVerdict, VerdictEvent{ExitCode: 1})
	h.Close(verdict)
	n := 0
	for range c.C() {
		n++
	}
	if n != 2 {
		t.Errorf("drained %d buffered messages, want 2", n)
	}
	if f := h.Final(); len(f) != 1 || f[0].Type != TypeVerdict {
		t.Errorf("Final() = %v, want the verdict", f)
	}
	h.Publish(tick("r", 9), "r") // after Close: nothing, no panic on a closed channel
	if _, _, ok := h.Subscribe(); ok {
		t.Error("Subscribe after Close was accepted")
	}
}

// TestHubReplay: a late client is sent what it missed, within bounds:
// the hello, every race message, the latest faults, and each race's
// ticks thinned to at most maxTicks with the latest kept.
func TestHubReplay(t *testing.T) {
	h := NewHub(4, nil)
	h.SetHello(Hello("run", "id", 4))
	h.Publish(newMessage(TypeRace, RaceEvent{Run: "a"}), "a")
	for i := range maxFaults + 10 {
		h.Publish(newMessage(TypeFault, FaultEvent{Run: "a", Detail: fmt.Sprint(i)}), "a")
	}
	last := 3*maxTicks + 7
	for i := 0; i <= last; i++ {
		h.Publish(tick("a", i), "a")
	}
	_, replay, ok := h.Subscribe()
	if !ok {
		t.Fatal("subscribe refused")
	}
	count := map[string]int{}
	for _, m := range replay {
		count[m.Type]++
	}
	if replay[0].Type != TypeHello || count[TypeRace] != 1 || count[TypeFault] != maxFaults {
		t.Errorf("replay starts %s and holds %v, want hello first, 1 race, %d faults", replay[0].Type, count, maxFaults)
	}
	if count[TypeTick] > maxTicks || count[TypeTick] < maxTicks/2 {
		t.Errorf("replay holds %d ticks, want between %d and %d", count[TypeTick], maxTicks/2, maxTicks)
	}
	var ev TickEvent
	_ = json.Unmarshal(replay[len(replay)-1].Data, &ev)
	if ev.Attempts != int64(last) {
		t.Errorf("the replay's last tick is %d, want the latest, %d", ev.Attempts, last)
	}
	var first FaultEvent
	for _, m := range replay {
		if m.Type == TypeFault {
			_ = json.Unmarshal(m.Data, &first)
			break
		}
	}
	if first.Detail != "10" {
		t.Errorf("the replay's first fault is %q, want the oldest of the latest %d, \"10\"", first.Detail, maxFaults)
	}
}

// TestHubMaxClients: past MaxClients, a browser is refused.
func TestHubMaxClients(t *testing.T) {
	h := NewHub(1, nil)
	for range MaxClients {
		if _, _, ok := h.Subscribe(); !ok {
			t.Fatal("refused below MaxClients")
		}
	}
	if _, _, ok := h.Subscribe(); ok {
		t.Error("accepted a client past MaxClients")
	}
}
