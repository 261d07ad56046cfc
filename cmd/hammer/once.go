package main

import (
	"flag"
	"fmt"
	"strings"
)

// parseOnce parses args with fs, refusing a flag given twice with two
// values (--mode none --mode lock-only): which one the user meant cannot
// be told, and racing the last one, as the flag package does, could run
// the race they did not ask for. The same value twice is one request.
func parseOnce(fs *flag.FlagSet, args []string) error {
	seen := &given{values: map[string]string{}}
	fs.VisitAll(func(f *flag.Flag) { f.Value = &onceValue{Value: f.Value, name: f.Name, seen: seen} })
	defer fs.VisitAll(func(f *flag.Flag) {
		if o, ok := f.Value.(*onceValue); ok {
			f.Value = o.Value
		}
	})
	err := fs.Parse(args)
	if seen.twice != nil {
		return seen.twice // without the flag package's "invalid value" around it
	}
	return err
}

// given is what the flags of one parse were given: each one's value, by
// name, and the first flag found given twice.
type given struct {
	values map[string]string
	twice  error
}

// onceValue is a flag's Value that refuses a second, different value.
type onceValue struct {
	flag.Value
	name string
	seen *given
}

// Set sets the value unless the flag was given another one already.
func (o *onceValue) Set(s string) error {
	if prev, ok := o.seen.values[o.name]; ok && prev != s {
		o.seen.twice = fmt.Errorf("--%s given twice, as %q and as %q: give it once", o.name, prev, s)
		if strings.HasSuffix(o.name, "-url") {
			o.seen.twice = fmt.Errorf("--%s given twice, with two URLs: give it once", o.name) // URLs hold passwords
		}
		return o.seen.twice
	}
	o.seen.values[o.name] = s
	return o.Value.Set(s)
}

// IsBoolFlag tells the flag package whether the flag takes no value.
func (o *onceValue) IsBoolFlag() bool {
	b, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
