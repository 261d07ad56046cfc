package chart

import (
	"encoding/xml"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// gateFixture is a folder as large as a gate: every mode under several
// faults, so the run charts are drawn as panels on the larger canvas.
func gateFixture() (history.Manifest, history.Records) {
	_, base := fixture()
	m := history.Manifest{Schema: history.ManifestSchema, RunID: "gate-test"}
	var r history.Records
	faults := []scenarios.Fault{"", "pause", "net-delay"}
	for fi, fault := range faults {
		for mi, mode := range scenarios.Modes() {
			run := history.Run{Name: scenarios.CellName(mode, fault, false), Mode: mode,
				Fault: fault, Seats: 2, GoAt: t0 + ms(float64(1000*(fi*5+mi)))}
			m.Runs = append(m.Runs, run)
			for _, a := range base.Attempts {
				if a.Run == "lock-only/pause" {
					a.Run, a.Mode = run.Name, run.Mode
					a.Invoke, a.Complete = a.Invoke+run.GoAt-t0, a.Complete+run.GoAt-t0
					a.DBStart, a.DBEnd = a.DBStart+run.GoAt-t0, a.DBEnd+run.GoAt-t0
					if !mode.UsesLock() {
						a.LockAcquired, a.LockReleased = 0, 0
					} else if a.LockAcquired > 0 {
						a.LockAcquired, a.LockReleased = a.LockAcquired+run.GoAt-t0, a.LockReleased+run.GoAt-t0
					}
					r.Attempts = append(r.Attempts, a)
				}
			}
			if fault != "" {
				r.Faults = append(r.Faults, history.FaultEvent{Run: run.Name, Fault: fault, Start: run.GoAt + ms(1), End: run.GoAt + ms(4)})
			}
		}
	}
	return m, r
}

func TestWrite(t *testing.T) {
	m, r := fixture()
	gm, gr := gateFixture()
	tests := []struct {
		name string
		data Data
		w, h int
	}{
		{"three runs", build(m, r, observe(r)), 1000, 600},
		{"runs without records", build(m, history.Records{}, nil), 1000, 600},
		{"empty folder", build(history.Manifest{}, history.Records{}, nil), 1000, 600},
		{"zero Data", Data{}, 1000, 600},
		{"gate-sized, in panels", build(gm, gr, nil), 1200, 800},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // rendering is slow under -race
			if w, h := canvasSize(tt.data); w != tt.w || h != tt.h {
				t.Fatalf("canvasSize = %d×%d, want %d×%d", w, h, tt.w, tt.h)
			}
			dir := t.TempDir()
			got, err := Write(dir, tt.data)
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			if want := expectedFiles(); !slices.Equal(got, want) {
				t.Fatalf("Write wrote %q, want %q", got, want)
			}
			for _, name := range got {
				path := filepath.Join(dir, name)
				switch filepath.Ext(name) {
				case ".png":
					checkPNG(t, path, tt.w, tt.h)
				case ".svg":
					checkSVG(t, path)
				}
			}
		})
	}
}

func TestWriteMissingDir(t *testing.T) {
	m, r := fixture()
	if _, err := Write(filepath.Join(t.TempDir(), "missing"), build(m, r, nil)); err == nil {
		t.Error("Write into a missing folder succeeded, want an error")
	}
}

// expectedFiles is every chart as PNG and SVG, sorted.
func expectedFiles() []string {
	var out []string
	for _, c := range folder.Charts() {
		out = append(out, c.Name+".png", c.Name+".svg")
	}
	slices.Sort(out)
	return out
}

// checkPNG checks that path decodes as a w×h PNG with some drawing in it.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %d×%d, want %d×%d", filepath.Base(path), b.Dx(), b.Dy(), w, h)
	}
	const want = 10
	if n := colours(img, want); n < want {
		t.Errorf("%s has %d distinct colours, want a drawing (at least %d)", filepath.Base(path), n, want)
	}
}

// colours counts the distinct colours of img, stopping at enough.
func colours(img image.Image, enough int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && len(seen) < enough; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

// checkSVG checks that path parses as XML whose root is <svg>.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var root struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
	}
	if err := xml.Unmarshal(b, &root); err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if root.XMLName.Local != "svg" {
		t.Errorf("%s: root element <%s>, want <svg>", filepath.Base(path), root.XMLName.Local)
	}
	if root.Width == "" {
		t.Errorf("%s: <svg> has no width", filepath.Base(path))
	}
}
