package stack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A Local stack's temporary directory holds an owner marker naming the
// hammer process that created it. A hammer killed with SIGKILL cannot remove
// its directory (its servers die with it, by Pdeathsig), so the next Local
// stack sweeps the directories whose owner is gone. A directory is removed
// only when its marker proves that hammer created it and that its owner no
// longer runs.
const (
	// stackDirPrefix starts the name of every Local stack directory.
	stackDirPrefix = "hammer-stack-"
	// ownerFile is the marker's name inside the directory.
	ownerFile = "owner"
	// maxOwnerSize bounds the marker a sweep reads.
	maxOwnerSize = 512
	// statStartField is the field of /proc/<pid>/stat holding the process
	// start time (clock ticks since boot), counting from 1.
	statStartField = 22
)

// errNotOwnerMarker reports a marker that hammer did not write: not a
// regular file, not owned by hammer's user, too large or malformed.
var errNotOwnerMarker = errors.New("not a hammer owner marker")

// dirOwner identifies the process that owns a Local stack directory. The
// start time tells the owner from a later process that got the same pid;
// the pid namespace tells whether the pid means anything here.
type dirOwner struct {
	pid   int
	start uint64 // /proc/<pid>/stat field 22
	pidNS string // e.g. "pid:[4026531836]"
}

// currentOwner describes the running process.
func currentOwner() (dirOwner, error) {
	pid := os.Getpid()
	start, err := procStartTime(pid)
	if err != nil {
		return dirOwner{}, err
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return dirOwner{}, fmt.Errorf("pid namespace: %w", err)
	}
	return dirOwner{pid: pid, start: start, pidNS: ns}, nil
}

// marshal is the marker's content.
func (o dirOwner) marshal() []byte {
	return fmt.Appendf(nil, "pid %d\nstart %d\npidns %s\n", o.pid, o.start, o.pidNS)
}

// parseOwner reads a marker written by marshal.
func parseOwner(data []byte) (dirOwner, error) {
	kv := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		key, value, ok := strings.Cut(line, " ")
		if !ok || value == "" {
			return dirOwner{}, fmt.Errorf("%w: line %q", errNotOwnerMarker, line)
		}
		kv[key] = value
	}
	// A pid must fit a pid_t and be positive: kill(0) or kill(-n) would
	// name a process group.
	pid, errP := strconv.ParseInt(kv["pid"], 10, 32)
	start, errS := strconv.ParseUint(kv["start"], 10, 64)
	if errP != nil || errS != nil || pid <= 0 || kv["pidns"] == "" {
		return dirOwner{}, fmt.Errorf("%w: %q", errNotOwnerMarker, data)
	}
	return dirOwner{pid: int(pid), start: start, pidNS: kv["pidns"]}, nil
}

// writeOwner puts the marker naming this process into dir, owned by
// hammer's user and readable by all, so that it stays hammer's after dir is
// handed to the PostgreSQL account.
func writeOwner(dir string) error {
	o, err := currentOwner()
	if err != nil {
		return fmt.Errorf("owner marker: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), o.marshal(), 0o644); err != nil {
		return fmt.Errorf("write owner marker: %w", err)
	}
	return nil
}

// readOwner reads the marker of dir. It refuses symlinks, FIFOs and files
// hammer's user does not own: another account may write into dir.
func readOwner(dir string) (dirOwner, error) {
	f, err := os.OpenFile(filepath.Join(dir, ownerFile), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return dirOwner{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return dirOwner{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || !ok || st.Uid != uint32(os.Geteuid()) || fi.Size() > maxOwnerSize {
		return dirOwner{}, errNotOwnerMarker
	}
	data, err := io.ReadAll(io.LimitReader(f, maxOwnerSize))
	if err != nil {
		return dirOwner{}, err
	}
	return parseOwner(data)
}

// gone reports whether the owner no longer runs, and if so why. When that
// cannot be told it reports false.
func (o dirOwner) gone() (string, bool) {
	if err := syscall.Kill(o.pid, 0); errors.Is(err, syscall.ESRCH) {
		return fmt.Sprintf("owner pid %d is gone", o.pid), true
	}
	start, err := procStartTime(o.pid)
	if err != nil || start == o.start {
		return "", false
	}
	return fmt.Sprintf("owner pid %d is gone; the pid now belongs to another process", o.pid), true
}

// staleReason reports whether dir is a stack directory whose owner is gone,
// and if so why. Without a valid marker, or for an owner in another pid
// namespace, it reports false.
func staleReason(dir string, self dirOwner) (string, bool) {
	o, err := readOwner(dir)
	if err != nil || o.pidNS != self.pidNS {
		return "", false
	}
	return o.gone()
}

// sweepStale removes the stack directories in parent whose owner is gone,
// logging one line per directory removed or failed to remove.
func sweepStale(parent string, log io.Writer) {
	self, err := currentOwner()
	if err != nil {
		fmt.Fprintf(log, "not looking for stale stack directories: %v\n", err)
		return
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		fmt.Fprintf(log, "not looking for stale stack directories: %v\n", err)
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), stackDirPrefix) {
			continue // a symlink is not a directory here
		}
		dir := filepath.Join(parent, e.Name())
		why, stale := staleReason(dir, self)
		if !stale {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(log, "could not remove stale stack directory %s (%s): %v\n", dir, why, err)
			continue
		}
		fmt.Fprintf(log, "removed stale stack directory %s (%s)\n", dir, why)
	}
}

// procStartTime returns the start time of process pid, in clock ticks
// since boot (/proc/<pid>/stat field 22).
func procStartTime(pid int) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("start time of pid %d: %w", pid, err)
	}
	return parseStartTime(data)
}

// parseStartTime picks the start time out of a /proc/<pid>/stat line. The
// command name (field 2) is in parentheses and may hold spaces and
// parentheses itself, so fields are counted after the last ')'.
func parseStartTime(stat []byte) (uint64, error) {
	i := bytes.LastIndexByte(stat, ')')
	fields := strings.Fields(string(stat[i+1:]))
	idx := statStartField - 3 // the first field after ')' is field 3
	if i < 0 || len(fields) <= idx {
		return 0, fmt.Errorf("malformed /proc stat %q", stat)
	}
	start, err := strconv.ParseUint(fields[idx], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("start time in /proc stat: %w", err)
	}
	return start, nil
}
