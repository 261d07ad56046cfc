package target

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/fault"
)

// TestIDPrefix: every race tags its request ids differently, the same way
// each time, with a tag a path, a header or JSON takes as it is.
func TestIDPrefix(t *testing.T) {
	a := IDPrefix("hammer:20261201-001907-6ec270:lock-plus-update/crash:")
	b := IDPrefix("hammer:20261201-001907-6ec270:lock-plus-update:")
	c := IDPrefix("hammer:20261201-002011-91ab03:lock-plus-update/crash:")
	if a == b || a == c || b == c {
		t.Errorf("tags %q, %q, %q: want one per race and run", a, b, c)
	}
	if again := IDPrefix("hammer:20261201-001907-6ec270:lock-plus-update/crash:"); again != a {
		t.Errorf("tag %q then %q for one race", a, again)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-$`).MatchString(a) {
		t.Errorf("tag %q, want 8 hex digits and a dash", a)
	}
}

// TestUntag: the ledger's ids lose the race's tag; a row without it keeps
// its id as it is.
func TestUntag(t *testing.T) {
	sales := []history.Sale{{RequestID: "0badcafe-p0-g1-a0"}, {RequestID: "seeded-by-setup"}, {RequestID: "deadbeef-p0-g2-a0"}}
	untag(sales, "0badcafe-")
	var got []string
	for _, s := range sales {
		got = append(got, s.RequestID)
	}
	if want := []string{"p0-g1-a0", "seeded-by-setup", "deadbeef-p0-g2-a0"}; !slices.Equal(got, want) {
		t.Errorf("ids %v, want %v", got, want)
	}
}

// TestRacesTagTheirIDs: the request a race hands its workers carries the
// race's own tag, so two races against the same replicas (a gate's
// variants, two runs) never send the same request id.
func TestRacesTagTheirIDs(t *testing.T) {
	f := &File{URLs: []string{"http://127.0.0.1:1"}, Request: RequestSpec{Method: "POST", Path: "/buy", Body: `{"id": "{{request_id}}"}`}}
	var tags []string
	for _, prefix := range []string{"hammer:run1:lock-only:", "hammer:run1:naive:", "hammer:run2:lock-only:"} {
		b := NewBackend(f, Variant{}, 0, 20)
		raw, err := b.Start(context.Background(), driver.BackendRace{KeyPrefix: prefix}, fault.Servers{})
		if err != nil {
			t.Fatal(err)
		}
		var req Request
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		if req.IDPrefix != IDPrefix(prefix) {
			t.Errorf("race %s: tag %q, want %q", prefix, req.IDPrefix, IDPrefix(prefix))
		}
		tags = append(tags, req.IDPrefix)
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(tags)))); n != 3 {
		t.Errorf("tags %v: want three different ones", tags)
	}
}

// TestIdempotencyCacheAcrossRaces: a service that answers a request id it
// has seen before with its first answer (an idempotency cache that
// outlives a race) gives each race's attempt an answer of its own, though
// hammer names the attempt p1-g2-a0 in both.
func TestIdempotencyCacheAcrossRaces(t *testing.T) {
	var mu sync.Mutex
	answered := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var res reservation
		if err := json.NewDecoder(r.Body).Decode(&res); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		body, ok := answered[res.RequestID]
		if !ok {
			body = fmt.Sprintf(`{"seat": %d}`, len(answered)+1)
			answered[res.RequestID] = body
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, body)
	}))
	defer srv.Close()
	var seats []int
	for _, prefix := range []string{"hammer:run1:lock-only:", "hammer:run2:lock-only:"} {
		req := exampleRequest(srv.URL)
		req.IDPrefix = IDPrefix(prefix)
		a := history.Attempt{Proc: 1, Goroutine: 2, RequestID: "p1-g2-a0"}
		connect(t, req, 1).Attempt(context.Background(), &a, nil)
		seats = append(seats, a.Seat)
	}
	if !slices.Equal(seats, []int{1, 2}) {
		t.Errorf("seats %v, want 1 then 2: the second race was answered from the first one's cache", seats)
	}
}
