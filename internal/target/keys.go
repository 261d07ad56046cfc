package target

import (
	"maps"
	"os"
	"slices"
	"strings"
)

// EnvPGOptions is the variable libpq, and the clients that follow it,
// read connection options from. hammer sets it for every replica to
// "-c search_path=<the race's schema>" unless the file sets it itself.
const EnvPGOptions = "PGOPTIONS"

// FixedKeys reports whether variant v of the service writes Redis keys
// with fixed names: hammer starts the replicas and hands none of them
// {{key_prefix}} (neither service.env nor v's env holds it), so nothing
// keeps its keys apart from another race's. Such a race gets a Redis of
// its own (driver.Options.OwnRedis). Replicas listed in urls: never do.
func (f *File) FixedKeys(v Variant) bool {
	return f.Service != nil && !holds(VarKeyPrefix, f.Service.Env) && !holds(VarKeyPrefix, v.Env)
}

// holds reports whether a value of env holds the placeholder name.
func holds(name string, env map[string]string) bool {
	for _, s := range env {
		if slices.Contains(Placeholders(s), name) {
			return true
		}
	}
	return false
}

// checkKeys checks lock_key against the way the service names its keys:
// a lock key under {{key_prefix}} needs every variant handed the prefix;
// a fixed one needs a service hammer starts with no variant handed it, so
// that every race can have a Redis of its own.
func (d *doc) checkKeys(f *File) error {
	if f.LockKey == "" {
		return nil
	}
	at := []string{"lock_key"}
	prefixed := strings.HasPrefix(f.LockKey, "{{"+VarKeyPrefix+"}}")
	switch {
	case !prefixed && slices.Contains(Placeholders(f.LockKey), VarKeyPrefix):
		return d.errAt(at, "{{key_prefix}} must start the key, or be left out for a service whose keys have fixed names")
	case !prefixed && f.Service == nil:
		return d.errAt(at, "must start with {{key_prefix}}: the replicas listed in urls share their Redis, and hammer only touches keys it owns (a service hammer starts, handed no {{key_prefix}}, gets a Redis of its own for each race and may name its keys freely)")
	case f.Service == nil:
		return nil
	}
	for _, v := range f.variants {
		switch fixed := f.FixedKeys(v); {
		case prefixed && fixed:
			return d.errAt(at, "starts with {{key_prefix}}, but variant %s is not handed {{key_prefix}} (in service.env or its env): hand it the prefix, or write the service's own fixed key name here", v.Name)
		case !prefixed && !fixed:
			return d.errAt(at, "a fixed key name needs a service whose keys all have fixed names, but variant %s is handed {{key_prefix}}: start lock_key with {{key_prefix}}, or hand no variant the prefix", v.Name)
		}
	}
	return nil
}

// checkSchema checks that the replicas can find the race's schema: either
// a variable hands them {{pg_schema}}, or hammer's PGOPTIONS sets their
// search_path, which a PGOPTIONS of the file's own would replace.
func (d *doc) checkSchema(f *File) error {
	if f.Service == nil {
		return nil
	}
	for _, v := range f.variants {
		env := maps.Clone(f.Service.Env)
		if env == nil {
			env = map[string]string{}
		}
		maps.Copy(env, v.Env)
		if _, set := env[EnvPGOptions]; !set || holds(VarPGSchema, env) {
			continue
		}
		at := []string{"service", "env", EnvPGOptions}
		if _, own := v.Env[EnvPGOptions]; own {
			at = []string{"variants", v.Name, "env", EnvPGOptions}
		}
		return d.errAt(at, "replaces hammer's PGOPTIONS (-c search_path=<the race's schema>) and no variable hands the service {{pg_schema}}, so it cannot find the race's tables: add -c search_path={{pg_schema}} to it")
	}
	return nil
}

// replicaEnv adds to env, a replica's environment as the file gives it
// (service.env, then the variant's, expanded), the PGOPTIONS that puts the
// race's schema on the search_path of every connection its PostgreSQL
// client opens, unless env sets PGOPTIONS itself; hammer's own PGOPTIONS
// is kept in front of it.
func replicaEnv(env map[string]string, schema string) map[string]string {
	if _, set := env[EnvPGOptions]; set {
		return env
	}
	out := maps.Clone(env)
	if out == nil {
		out = map[string]string{}
	}
	out[EnvPGOptions] = strings.TrimSpace(os.Getenv(EnvPGOptions) + " -c search_path=" + schema)
	return out
}
