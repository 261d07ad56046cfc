package target

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hammer-load/hammer/internal/proclog"
)

// buildTimeout bounds the service's build step.
const buildTimeout = 5 * time.Minute

// Build runs the service's build command once, from the file's folder,
// before any replica starts, then checks that the service's command can
// be run; nothing to do when the file starts no service. A build or
// command that does not exist or is not executable is named in the error
// before anything runs; a failing build's error quotes the last lines it
// printed.
func Build(ctx context.Context, f *File) error {
	if f.Service == nil {
		return nil
	}
	if argv := f.Service.Build; len(argv) > 0 {
		if err := f.checkExecutable("service.build", argv[0]); err != nil {
			return err
		}
		if err := run(ctx, f, argv); err != nil {
			return err
		}
	}
	return f.checkExecutable("service.command", f.Service.Command[0])
}

// ServiceName names the service in progress lines: the file's name, or
// its folder's.
func (f *File) ServiceName() string {
	if f.Name != "" {
		return f.Name
	}
	return filepath.Base(f.Dir)
}

// run runs the build command argv from the file's folder.
func run(ctx context.Context, f *File, argv []string) error {
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = f.Dir
	out := proclog.New(buildLogHead, buildLogTail)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		said := ""
		if q := out.Quote(buildQuoteLines); q != "" {
			said = ": " + q
		}
		return fmt.Errorf("%s: build (%s) failed: %v%s", f.Path, strings.Join(argv, " "), err, said)
	}
	return nil
}

// A failed build's error quotes up to buildQuoteLines of the last lines
// it printed: the last one alone is often a tool's pointer to its own log
// (npm's "A complete log of this run can be found in …"), the cause the
// line before. Of its output, the first buildLogHead bytes and the last
// buildLogTail are kept.
const (
	buildQuoteLines = 3
	buildLogHead    = 4 << 10
	buildLogTail    = 16 << 10
)

// checkExecutable says why name, the program of the file's setting key,
// cannot be run: a name with a slash is a file relative to the file's
// folder, one without is looked up in $PATH, as exec.Command does.
func (f *File) checkExecutable(key, name string) error {
	path := name
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		path = filepath.Join(f.Dir, name)
	}
	if _, err := exec.LookPath(path); err != nil {
		where := "in $PATH"
		if strings.Contains(name, "/") {
			where = "(from " + f.Dir + ")"
		}
		return fmt.Errorf("%s: %s: %s is not an executable file %s: %v", f.Path, key, name, where, cause(err))
	}
	return nil
}

// cause is the reason of an exec.Error, without the name it repeats.
func cause(err error) error {
	if e, ok := err.(*exec.Error); ok {
		return e.Err
	}
	return err
}
