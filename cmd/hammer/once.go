package main

import (
	"flag"
	"fmt"
	"strings"
)

// parseOnce parses args with fs and returns, besides Parse's error, a
// warning for each flag given twice with two values (--mode none --mode
// lock-only): the flag package keeps the last, as scripts that append an
// override to their defaults expect, but a user who typed both should not
// have the race they did not mean run without a word. The same value twice
// is one request.
func parseOnce(fs *flag.FlagSet, args []string) (warnings []string, err error) {
	seen := &given{values: map[string]string{}}
	fs.VisitAll(func(f *flag.Flag) { f.Value = &onceValue{Value: f.Value, name: f.Name, seen: seen} })
	defer fs.VisitAll(func(f *flag.Flag) {
		if o, ok := f.Value.(*onceValue); ok {
			f.Value = o.Value
		}
	})
	err = fs.Parse(args)
	return seen.twice, err
}

// given is what the flags of one parse were given: each one's value, by
// name, and a warning for each flag given another value.
type given struct {
	values map[string]string
	twice  []string
}

// onceValue is a flag's Value that notes a second, different value.
type onceValue struct {
	flag.Value
	name string
	seen *given
}

// Set sets the value, noting it when the flag had another one already.
func (o *onceValue) Set(s string) error {
	if prev, ok := o.seen.values[o.name]; ok && prev != s {
		w := fmt.Sprintf("--%s given twice, as %q and then as %q: the last one counts", o.name, prev, s)
		if secretFlag(o.name) {
			w = fmt.Sprintf("--%s given twice, with two values: the last one counts", o.name)
		}
		o.seen.twice = append(o.seen.twice, w)
	}
	o.seen.values[o.name] = s
	return o.Value.Set(s)
}

// IsBoolFlag tells the flag package whether the flag takes no value.
func (o *onceValue) IsBoolFlag() bool {
	b, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// secretFlag reports whether the values of flag name may hold a secret
// (a URL's password, a token), so that no message quotes them: the masking
// of what hammer prints knows a secret in its plain and escaped forms, not
// as Go quotes it.
func secretFlag(name string) bool {
	return strings.HasSuffix(name, "-url") || strings.Contains(name, "token") || name == "otlp"
}
