package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// The passwords of TestSecretsNeverPrinted: text that cannot occur by
// accident, with characters a URL must escape, so that their escaped forms
// differ from the plain ones.
const (
	redisSecret = "s3cr3t/Zq7"
	pgSecret    = "pg:s3cr3t@Zq7"
)

// TestSecretsNeverPrinted exports URLs with passwords, runs every command
// — asking for help, failing and succeeding — and checks that no password,
// in any form, reaches stdout, stderr or any file of the results folders.
// Redis really checks its password: the URL names an ACL user made for
// this test.
func TestSecretsNeverPrinted(t *testing.T) {
	redisURL, pgURL := secretURLs(t)
	t.Setenv(envRedisURL, redisURL)
	t.Setenv(envPGURL, pgURL)

	dir := t.TempDir()
	runOut, gateOut := filepath.Join(dir, "run"), filepath.Join(dir, "gate")
	matrix := filepath.Join(dir, "one.matrix")
	if err := os.WriteFile(matrix, []byte("lock-only pause unsafe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadRedis := "redis://u:" + url.QueryEscape(redisSecret) + "@127.0.0.1:1/0"
	deadPG := "postgres://u:" + url.QueryEscape(pgSecret) + "@127.0.0.1:1/db"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string // a part of stdout or stderr that shows the case did what it should
	}{
		{"run help", []string{"run", "-h"}, exitOK, "(default $HAMMER_REDIS_URL)"},
		{"gate help", []string{"gate", "-h"}, exitOK, "(default $HAMMER_PG_URL)"},
		{"load help", []string{"load", "-h"}, exitOK, "(default $HAMMER_REDIS_URL)"},
		{"flag typo", []string{"run", "--mdoe", "x"}, exitUsage, "flag provided but not defined: -mdoe"},
		{"run from the environment", []string{"run", "--mode", "update-only", "--procs", "2", "--goroutines", "20", "--seats", "10", "--out", runOut}, exitOK, "checking external redis at"},
		{"gate from the environment", []string{"gate", "--matrix", matrix, "--out", gateOut}, exitOK, "checking external redis at"},
		{"verify run", []string{"verify", runOut}, exitOK, ""},
		{"verify gate", []string{"verify", gateOut}, exitOK, ""},
		{"report run", []string{"report", runOut}, exitOK, ""},
		{"report gate", []string{"report", gateOut}, exitOK, ""},
		{"report compare", []string{"report", "--compare", runOut, runOut}, exitOK, "no run got worse"},
		{"report compare unlike", []string{"report", "--compare", runOut, gateOut}, exitUsage, "have no run in common"},
		{"unreachable servers", []string{"run", "--mode", "update-only", "--stack", "external", "--redis-url", deadRedis, "--pg-url", deadPG, "--out", filepath.Join(dir, "dead")}, exitInfra, "redis at 127.0.0.1:1 refused the connection"},
		{"malformed redis url", []string{"run", "--mode", "none", "--redis-url", "redis://u:" + redisSecret + "@[bad", "--out", filepath.Join(dir, "bad1")}, exitUsage, "malformed Redis URL"},
		{"malformed pg url", []string{"run", "--mode", "none", "--pg-url", "postgres://u:" + pgSecret + "@h:port/db", "--out", filepath.Join(dir, "bad2")}, exitUsage, "malformed PostgreSQL URL"},
		{"stray url argument", []string{"run", "--mode", "none", pgURL}, exitUsage, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := hammer(t, tt.args...)
			noSecret(t, "stdout", stdout)
			noSecret(t, "stderr", stderr)
			if code != tt.wantCode || !strings.Contains(stdout+stderr, tt.wantErr) {
				t.Errorf("exit %d, want %d; output should contain %q:\nstderr:\n%s\nstdout:\n%s", code, tt.wantCode, tt.wantErr, stderr, stdout)
			}
		})
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files++
		noSecret(t, path, string(b))
		return err
	})
	if err != nil || files < 10 {
		t.Fatalf("walked %d files of the results folders: %v", files, err)
	}
}

// noSecret fails t if text holds either password in any form, or the
// part both share (a URL broken by an unescaped '/' or '@' may be quoted
// cut at it).
func noSecret(t *testing.T, where, text string) {
	t.Helper()
	var forms []string
	for _, pw := range []string{redisSecret, pgSecret} {
		userinfo := strings.TrimPrefix(url.UserPassword("u", pw).String(), "u:")
		forms = append(forms, pw, url.QueryEscape(pw), url.PathEscape(pw), userinfo)
	}
	for _, form := range append(forms, "s3cr3t") {
		if i := strings.Index(text, form); i >= 0 {
			t.Errorf("%s holds a password as %q: …%s…", where, form, text[max(0, i-60):min(len(text), i+len(form)+60)])
			return
		}
	}
}

// secretURLs returns URLs of the shared stack that carry the passwords: a
// Redis ACL user that exists for this test only, and the PostgreSQL role
// with a password, which the local stack's trust authentication accepts.
// A PostgreSQL that already has a password in its URL checks it, so there
// the URL keeps its own and only the failing cases carry pgSecret.
func secretURLs(t *testing.T) (redisURL, pgURL string) {
	t.Helper()
	st := stacktest.Get(t)
	opt, err := redis.ParseURL(st.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	var b [4]byte
	_, _ = rand.Read(b[:])
	user := "hammer-secrets-" + hex.EncodeToString(b[:])
	ctx := context.Background()
	if err := rdb.Do(ctx, "ACL", "SETUSER", user, "on", ">"+redisSecret, "~*", "&*", "+@all").Err(); err != nil {
		t.Fatalf("create redis user: %v", err)
	}
	t.Cleanup(func() { rdb.Do(context.Background(), "ACL", "DELUSER", user) })

	ru, err := url.Parse(st.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	ru.User = url.UserPassword(user, redisSecret)
	pu, err := url.Parse(st.PGURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, has := pu.User.Password(); has {
		t.Logf("the shared PostgreSQL checks passwords: its URL keeps its own")
	} else {
		pu.User = url.UserPassword(pu.User.Username(), pgSecret)
	}
	return ru.String(), pu.String()
}
