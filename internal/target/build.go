package target

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// buildTimeout bounds the service's build step.
const buildTimeout = 5 * time.Minute

// Build runs the service's build command once, from the file's folder,
// before any replica starts; nothing to do when the file has none. The
// error quotes the last line the command printed.
func Build(ctx context.Context, f *File) error {
	if f.Service == nil || len(f.Service.Build) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	argv := f.Service.Build
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = f.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		return fmt.Errorf("%s: build (%s) failed: %v: %s", f.Path, strings.Join(argv, " "), err, lines[len(lines)-1])
	}
	return nil
}
