package target

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

// maxFuzzInput bounds what the fuzz targets feed the parsers: the
// properties do not depend on size, and small inputs keep every
// execution fast on a busy machine.
const maxFuzzInput = 64 << 10

// fuzzDeadline bounds one execution of a fuzz target: a parser that
// takes longer on an input of at most maxFuzzInput bytes hangs. Every
// input takes milliseconds; the margin is for a machine busy with other
// work.
const fuzzDeadline = 10 * time.Second

// within runs fn and fails t when it takes longer than fuzzDeadline: the
// fuzzing engine reports a crash, not a hang, and saves the input only
// for a failure.
func within(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(fuzzDeadline):
		t.Fatalf("still running after %v: a hang", fuzzDeadline)
	}
}

// targetSeeds are the real target files of the repository, the seeds of
// FuzzLoad.
func targetSeeds(f *testing.F) [][]byte {
	f.Helper()
	paths := []string{
		filepath.Join("testdata", "ticketd.yaml"),
		filepath.Join("..", "..", "examples", "ticketd", "target.yaml"),
		filepath.Join("..", "..", "examples", "ticketd-node", "target.yaml"),
		filepath.Join("..", "..", "examples", "ticketd-ts", "target.yaml"),
		filepath.Join("..", "..", "examples", "ticketd-php", "target.yaml"),
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return append(out, []byte(base))
}

// FuzzLoad feeds the target-file parser arbitrary bytes. A refusal is one
// line naming the file; a file it accepts is complete enough to race:
// its request resolves into one a worker accepts, every variant can be
// looked up by its name, and parsing it again gives the same File.
func FuzzLoad(f *testing.F) {
	for _, b := range targetSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte("name: [unclosed"))
	f.Add([]byte("a: &a [*a, *a]\nb: *a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		const path = "fuzz/target.yaml"
		var got *File
		var err error
		within(t, func() { got, err = parse(path, "/fuzz", b) })
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("the refusal is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, path+":") {
				t.Fatalf("the refusal does not start with the file's name: %q", msg)
			}
			return
		}
		checkLoaded(t, got)
		again, err := parse(path, "/fuzz", b)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("parsing the same bytes again gave %+v, %v; want %+v", again, err, got)
		}
	})
}

// checkLoaded checks what every loaded target file holds.
func checkLoaded(t *testing.T, f *File) {
	t.Helper()
	if (f.Service == nil) == (f.URLs == nil) {
		t.Fatalf("service %+v and urls %v: want exactly one", f.Service, f.URLs)
	}
	names := f.VariantNames()
	if len(names) == 0 {
		t.Fatal("a loaded file has no variant")
	}
	for _, n := range names {
		if v, err := f.Variant(n); err != nil || v.Name != n {
			t.Fatalf("Variant(%q) = %+v, %v", n, v, err)
		}
	}
	if f.Request.Timeout <= 0 || strings.TrimSpace(f.Truth.Ledger) == "" {
		t.Fatalf("timeout %v, ledger %q: want both", f.Request.Timeout, f.Truth.Ledger)
	}
	for name, v := range f.Request.Headers {
		if strings.ContainsAny(name+v+f.Request.Path, "\r\n") {
			t.Fatalf("header %q: %q or path %q holds a line break: every request would fail", name, v, f.Request.Path)
		}
	}
	if !slices.ContainsFunc(append(slices.Collect(maps.Values(f.Request.Headers)), f.Request.Path, f.Request.Body),
		func(s string) bool { return slices.Contains(Placeholders(s), VarRequestID) }) {
		t.Fatalf("request %+v does not send {{request_id}}", f.Request)
	}
	replicas := f.URLs
	if replicas == nil {
		replicas = []string{"http://127.0.0.1:8080"}
	}
	r := f.Resolve(replicas, map[string]string{VarSector: "1", VarSeats: "100"})
	if err := r.check(); err != nil {
		t.Fatalf("a loaded file resolves into a request a worker refuses: %v", err)
	}
	if _, err := replicasOf(r); err != nil {
		t.Fatalf("a loaded file's replicas are refused by a worker: %v", err)
	}
	for _, body := range []string{`{"seat": 3, "error": "sold_out"}`, `not json`, ``} {
		for _, status := range []int{200, 201, 409, 500} {
			if out, seat, ok := f.Responses.Match(status, []byte(body)); ok && out == history.Sold && seat < 1 {
				t.Fatalf("Match(%d, %q) sold seat %d", status, body, seat)
			}
		}
	}
}

// FuzzMatch feeds the response rules of the example target file (and of
// a file with deeper pointers) arbitrary responses, as a service could
// send: a sale always names a positive seat, and a body that is not one
// JSON document matches only rules that do not look into it.
func FuzzMatch(f *testing.F) {
	example, err := parse("ticketd.yaml", "/fuzz", targetSeeds(f)[0])
	if err != nil {
		f.Fatal(err)
	}
	deep := Rules{
		{Status: 200, JSON: &Condition{Pointer: "/a~1b/0/~0c", Equals: "null"}, Outcome: history.SoldOut},
		{Status: 200, JSON: &Condition{Pointer: "/ok", Equals: "true"}, Outcome: history.Sold, Seat: "/seats/1"},
		{Status: 200, Outcome: history.Sold, Seat: "/seat"},
		{Status: 200, Outcome: history.Rejected},
	}
	for _, s := range []struct {
		status int
		body   string
	}{
		{201, `{"seat": 7}`}, {201, `{"seat": 7.5}`}, {201, `{"seat": -1}`}, {201, `{"seat": 1e3}`},
		{409, `{"error": "sold_out"}`}, {409, `{"error": "sold_out"} {}`}, {200, `{"a/b": [{"~c": null}]}`},
		{200, `{"ok": true, "seats": [1, 99999999999999999999]}`}, {200, `[[[[[[[[[[]]]]]]]]]]`},
	} {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if len(body) > maxFuzzInput {
			return
		}
		_, valid := parseJSON(body)
		for _, rs := range []Rules{example.Responses, deep} {
			out, seat, ok := rs.Match(status, body)
			if !ok {
				if out != "" || seat != 0 {
					t.Fatalf("no match, yet outcome %q seat %d", out, seat)
				}
				continue
			}
			if out == history.Sold && seat < 1 {
				t.Fatalf("Match(%d, %q) sold seat %d", status, body, seat)
			}
			if !valid && !slices.ContainsFunc(rs, func(r Rule) bool {
				return r.Status == status && r.JSON == nil && r.Seat == "" && r.Outcome == out
			}) {
				t.Fatalf("Match(%d, %q) = %s: the body is no JSON, only a rule without json or seat may match", status, body, out)
			}
			again, seat2, ok2 := rs.Match(status, body)
			if again != out || seat2 != seat || !ok2 {
				t.Fatalf("Match is not deterministic: %s %d, then %s %d", out, seat, again, seat2)
			}
		}
	})
}

// FuzzExpand checks the placeholder scanner and Expand on arbitrary
// strings: expanding with no values, or with each name's own placeholder
// as its value, leaves the string as it is; a value is never expanded in
// turn.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"{{request_id}}", "{{ sector }}", `{"a": {{seats}}}`, "{{{sector}}}", "{{", "}}{{", "{{a}}{{b}}",
		`{"request_id": "{{request_id}}", "contender": "{{contender}}"}`, "{{_9}}{{9a}}",
	} {
		f.Add(s, "v")
	}
	f.Add("{{sector}}", "{{sector}}")
	f.Fuzz(func(t *testing.T, s, v string) {
		if len(s)+len(v) > maxFuzzInput {
			return
		}
		if got := Expand(s, nil); got != s {
			t.Fatalf("Expand(%q, nil) = %q", s, got)
		}
		self := map[string]string{}
		for _, n := range Placeholders(s) {
			self[n] = "{{" + n + "}}"
		}
		if got := Expand(s, self); got != s {
			t.Fatalf("Expand(%q) with each name's own placeholder = %q", s, got)
		}
		vals := map[string]string{}
		for _, n := range Placeholders(s) {
			vals[n] = v
		}
		got := Expand(s, vals)
		if !strings.ContainsAny(v, "{}") && len(Placeholders(got)) > strings.Count(s, "{{") {
			t.Fatalf("Expand(%q) with %q = %q: more placeholders than the string could hold", s, v, got)
		}
		if len(Placeholders(s)) == 0 && got != s {
			t.Fatalf("Expand(%q) without placeholders changed it to %q", s, got)
		}
	})
}
