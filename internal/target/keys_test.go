package target

import (
	"strings"
	"testing"
)

// TestFixedKeys: a service handed neither {{key_prefix}} nor {{pg_schema}}
// loads with a fixed lock key, and each variant is known to write fixed
// keys; one handed the prefix is not.
func TestFixedKeys(t *testing.T) {
	text := strings.Replace(strings.Replace(edit(9, 10, ""), `"{{key_prefix}}lock:sector:{{sector}}"`, `"seatd:lock:sector:{{sector}}"`, 1),
		"{env: {STRATEGY: naive}", "{env: {STRATEGY: naive, PGOPTIONS: '-c search_path={{pg_schema}}'}", 1)
	f, err := Load(write(t, text))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range f.Variants() {
		if !f.FixedKeys(v) {
			t.Errorf("variant %s: FixedKeys false for a service handed no {{key_prefix}}", v.Name)
		}
	}
	if f.LockKey != "seatd:lock:sector:{{sector}}" {
		t.Errorf("lock key %q", f.LockKey)
	}
	prefixed, err := Load(write(t, base))
	if err != nil {
		t.Fatal(err)
	}
	if v := prefixed.Variants()[0]; prefixed.FixedKeys(v) {
		t.Errorf("variant %s: FixedKeys true for a service handed {{key_prefix}}", v.Name)
	}
}

// TestReplicaEnv: hammer's PGOPTIONS puts the race's schema on the search
// path, after hammer's own PGOPTIONS, unless the file sets PGOPTIONS.
func TestReplicaEnv(t *testing.T) {
	t.Setenv(EnvPGOptions, "-c statement_timeout=5s")
	got := replicaEnv(map[string]string{"A": "1"}, "hammer_x_naive")
	if want := "-c statement_timeout=5s -c search_path=hammer_x_naive"; got[EnvPGOptions] != want || got["A"] != "1" {
		t.Errorf("env %v, want PGOPTIONS %q and A=1", got, want)
	}
	own := map[string]string{EnvPGOptions: "-c search_path=elsewhere"}
	if got := replicaEnv(own, "hammer_x_naive"); got[EnvPGOptions] != "-c search_path=elsewhere" {
		t.Errorf("the file's PGOPTIONS was replaced: %v", got)
	}
}
