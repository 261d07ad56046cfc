package history

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRedact puts a secret in every string of a folder and checks that
// Redact masks it in each string that can carry error text. A new string
// field fails the test until it is either masked or listed here as one
// that only holds names hammer chose.
func TestRedact(t *testing.T) {
	notMasked := []string{
		"Manifest.Schema", "Manifest.RunID", "Manifest.Command", "Manifest.Stack",
		"Manifest.Env.Hammer", "Manifest.Env.Revision", "Manifest.Env.Go", "Manifest.Env.Redis",
		"Manifest.Env.PostgreSQL", "Manifest.Env.Fsync",
		"Manifest.Runs[].Name", "Manifest.Runs[].Mode", "Manifest.Runs[].Expected", "Manifest.Runs[].Fault", "Manifest.Runs[].Lock",
		"Records.Attempts[].Run", "Records.Attempts[].Mode", "Records.Attempts[].RequestID", "Records.Attempts[].Outcome",
		"Records.Sales[].Run", "Records.Sales[].RequestID", "Records.Sales[].Worker",
		"Records.Sectors[].Run",
		"Records.Faults[].Run", "Records.Faults[].Fault", "Records.Faults[].RequestID",
		"Records.Locks[].Run",
		"Manifest.Runs[].Outages[].Server", "Records.Attempts[].Infra",
		"Records.Attempts[].Trace", "Records.Attempts[].Span", // W3C ids hammer drew
		"Records.Attempts[].Replica",                                     // index and host:port, never the userinfo of a URL
		"Manifest.Runs[].Agents[].Host", "Manifest.Runs[].Agents[].Addr", // a host name and the address it joined from
		"Manifest.Runs[].ReplicaLogs[].File", // a path hammer chose in the results folder
	}
	const secret = "pw-Zq7"
	var f Log
	fill(reflect.ValueOf(&f).Elem(), "", func(string, reflect.Value) string { return "error: " + secret })
	f.Redact(func(s string) string { return strings.ReplaceAll(s, secret, "xxxxx") })
	var left []string
	fill(reflect.ValueOf(&f).Elem(), "", func(path string, v reflect.Value) string {
		if strings.Contains(v.String(), secret) {
			left = append(left, path)
		}
		return v.String()
	})
	for _, p := range left {
		if !slices.Contains(notMasked, p) {
			t.Errorf("%s still holds the secret after Redact", p)
		}
	}
	for _, p := range notMasked {
		if !slices.Contains(left, p) {
			t.Errorf("%s is listed as not masked but was masked (or is gone): update the list", p)
		}
	}
}

// fill walks v, giving each slice one element, and sets every string to
// what set returns for its path.
func fill(v reflect.Value, path string, set func(path string, v reflect.Value) string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(set(path, v))
	case reflect.Struct:
		for i := range v.NumField() {
			name := v.Type().Field(i).Name
			if path != "" {
				name = path + "." + name
			}
			fill(v.Field(i), name, set)
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := range v.Len() {
			fill(v.Index(i), path+"[]", set)
		}
	}
}
