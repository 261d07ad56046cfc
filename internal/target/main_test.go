package target

import (
	"os"
	"testing"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestMain lets tests use the shared stack of stacktest.
func TestMain(m *testing.M) { os.Exit(stacktest.Main(m)) }
