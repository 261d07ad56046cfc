package uplot

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestNotice: NOTICE.md names the embedded version and the sha256 of each
// vendored file, so a file changed by hand, or an update that forgot the
// notice, fails.
func TestNotice(t *testing.T) {
	b, err := os.ReadFile("NOTICE.md")
	if err != nil {
		t.Fatal(err)
	}
	notice := string(b)
	if !strings.Contains(notice, "version: "+Version) || !strings.Contains(notice, "uplot@"+Version) {
		t.Errorf("NOTICE.md does not name version %s", Version)
	}
	for name, content := range map[string]string{"uPlot.iife.min.js": JS, "uPlot.min.css": CSS, "LICENSE": License} {
		sum := sha256.Sum256([]byte(content))
		if line := hex.EncodeToString(sum[:]) + "  " + name; !strings.Contains(notice, line) {
			t.Errorf("NOTICE.md lacks %q: the vendored file differs from what it records", line)
		}
	}
}
