package stack

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// localBins are the server binaries a Local stack runs.
type localBins struct {
	redisServer string
	initdb      string
	postgres    string
}

// findLocalBins finds redis-server (PATH, /usr/bin, /usr/sbin) and initdb +
// postgres (PATH, else the newest /usr/lib/postgresql/*/bin). The error
// wraps ErrUnavailable and says what to install.
func findLocalBins() (localBins, error) {
	var b localBins
	b.redisServer = findExecutable("redis-server", "/usr/bin", "/usr/sbin")
	if b.redisServer == "" {
		return b, unavailablef("redis-server not found in PATH, /usr/bin or /usr/sbin (apt-get install redis-server)")
	}
	b.initdb, b.postgres = findPostgres()
	if b.initdb == "" {
		return b, unavailablef("initdb and postgres not found in PATH or /usr/lib/postgresql/*/bin (apt-get install postgresql)")
	}
	return b, nil
}

// findExecutable looks name up in PATH, then in dirs; "" if absent.
func findExecutable(name string, dirs ...string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); isExecutable(p) {
			return p
		}
	}
	return ""
}

// findPostgres returns initdb and postgres from PATH when both are there,
// else from the newest /usr/lib/postgresql/<version>/bin holding both.
func findPostgres() (initdb, postgres string) {
	initdb, errI := exec.LookPath("initdb")
	postgres, errP := exec.LookPath("postgres")
	if errI == nil && errP == nil {
		return initdb, postgres
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return slices.Compare(versionOf(b), versionOf(a)) })
	for _, d := range dirs {
		i, p := filepath.Join(d, "initdb"), filepath.Join(d, "postgres")
		if isExecutable(i) && isExecutable(p) {
			return i, p
		}
	}
	return "", ""
}

// versionOf returns the numeric parts of the version directory of a
// /usr/lib/postgresql/<version>/bin path, e.g. [9 6] for 9.6.
func versionOf(binDir string) []int {
	var v []int
	for _, part := range strings.Split(filepath.Base(filepath.Dir(binDir)), ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return v
		}
		v = append(v, n)
	}
	return v
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// osUser is an account servers run as.
type osUser struct {
	name     string
	uid, gid uint32
}

// serverUser returns the account PostgreSQL must run as: nil (hammer's
// own) unless hammer runs as root, which PostgreSQL refuses; then the
// "postgres" account if it exists, else "nobody".
func serverUser() (*osUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var errs []string
	for _, name := range []string{"postgres", "nobody"} {
		u, err := lookupUser(name)
		if err == nil {
			return u, nil
		}
		errs = append(errs, err.Error())
	}
	return nil, fmt.Errorf("running as root and no unprivileged account for postgres: %s", strings.Join(errs, "; "))
}

// lookupUser resolves an account name to its ids.
func lookupUser(name string) (*osUser, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: gid %q: %w", name, u.Gid, err)
	}
	return &osUser{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
}
