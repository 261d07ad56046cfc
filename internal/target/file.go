// Package target drives a user's HTTP service as a contender: it loads the
// target file that says how to start, drive and check the service
// (Load), expands its {{name}} placeholders (Expand), maps a response to
// an outcome by the file's rules (Rules.Match), and makes attempts as
// HTTP requests spread over the service's replicas (Connect, a
// worker.Connect).
package target

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hammer-load/hammer/internal/bounded"
	"github.com/hammer-load/hammer/scenarios"
)

// MaxFileSize is the most hammer reads of a target file: a real one is a
// few kilobytes. A larger file, or one that is no regular file (a device,
// a FIFO, a directory), is refused by Load without being read.
const MaxFileSize = 1 << 20

// The defaults of the optional durations of a target file.
const (
	// DefaultReadyTimeout bounds the wait for a replica to answer its
	// ready path when service.ready_timeout is not given.
	DefaultReadyTimeout = 20 * time.Second
	// DefaultRequestTimeout bounds one request when request.timeout is
	// not given.
	DefaultRequestTimeout = 10 * time.Second
)

// File is a loaded and validated target file. Strings still hold their
// placeholders: what they stand for is known only per race.
type File struct {
	// Path is the file as it was named to Load; Dir is its folder,
	// absolute: commands run there and relative paths start there.
	Path, Dir string
	// Name names the service in reports; empty when the file gives none.
	Name string
	// Service says how to start one replica; nil when URLs are given.
	Service *Service
	// URLs are the base URLs of replicas already running, without a
	// trailing slash; nil when Service is given.
	URLs []string
	// Setup is the SQL run before each race in the race's schema.
	Setup string
	// Request is the request one attempt sends.
	Request RequestSpec
	// Responses are the rules that map a response to an outcome.
	Responses Rules
	// LockKey is the Redis key of the service's lock; empty when unknown.
	LockKey string
	// Truth reads what really happened after the race.
	Truth Truth
	// variants in file order.
	variants []Variant
}

// Service says how hammer starts one replica of the service.
type Service struct {
	// Build is run once, from the file's folder, before any replica
	// starts; nil when there is nothing to build.
	Build []string
	// Command is run from the file's folder once per replica.
	Command []string
	// PortEnv names the variable that receives the replica's port.
	PortEnv string
	// Env is added to hammer's own environment; values hold placeholders.
	Env map[string]string
	// Ready is the path that answers 200 once the replica is ready.
	Ready string
	// ReadyTimeout bounds the wait for a replica to be ready.
	ReadyTimeout time.Duration
}

// Variant is one setting of the service's strategy switch.
type Variant struct {
	// Name is the variant's key in the file.
	Name string
	// Env overrides the service's environment; values hold placeholders.
	Env map[string]string
	// Expect is whether the variant must be safe or be caught overselling.
	Expect scenarios.Expectation
}

// RequestSpec is the request of one attempt as the file gives it.
type RequestSpec struct {
	// Method is the HTTP method, such as POST.
	Method string
	// Path starts with "/"; it holds placeholders.
	Path string
	// Headers are set on every request; their values hold placeholders.
	Headers map[string]string
	// Body is sent as it is, once its placeholders are expanded.
	Body string
	// Timeout bounds one request, from sending it to reading the body.
	Timeout time.Duration
}

// Truth holds the queries that read what really happened.
type Truth struct {
	// Ledger returns rows (request id text, seat int).
	Ledger string
	// Sector returns one row (capacity int, available int); empty when
	// the service keeps no counter.
	Sector string
}

// Variant returns the variant called name, or an error that lists the
// names the file has.
func (f *File) Variant(name string) (Variant, error) {
	for _, v := range f.variants {
		if v.Name == name {
			return v, nil
		}
	}
	return Variant{}, fmt.Errorf("%s: no variant %q (the file has %s)", f.Path, name, strings.Join(f.VariantNames(), ", "))
}

// VariantNames returns the names of the variants in file order.
func (f *File) VariantNames() []string {
	names := make([]string, len(f.variants))
	for i, v := range f.variants {
		names[i] = v.Name
	}
	return names
}

// Variants returns the variants in file order.
func (f *File) Variants() []Variant { return slices.Clone(f.variants) }

// rawFile is the file as YAML decodes it, before validation.
type rawFile struct {
	Name      string                `yaml:"name"`
	Service   *rawService           `yaml:"service"`
	URLs      []string              `yaml:"urls"`
	Setup     string                `yaml:"setup"`
	Variants  map[string]rawVariant `yaml:"variants"`
	Request   rawRequest            `yaml:"request"`
	Responses []Rule                `yaml:"responses"`
	LockKey   string                `yaml:"lock_key"`
	Truth     Truth                 `yaml:"truth"`
}

type rawService struct {
	Build        []string          `yaml:"build"`
	Command      []string          `yaml:"command"`
	PortEnv      string            `yaml:"port_env"`
	Env          map[string]string `yaml:"env"`
	Ready        string            `yaml:"ready"`
	ReadyTimeout string            `yaml:"ready_timeout"`
}

type rawVariant struct {
	Env    map[string]string     `yaml:"env"`
	Expect scenarios.Expectation `yaml:"expect"`
}

type rawRequest struct {
	Method  string            `yaml:"method"`
	Path    string            `yaml:"path"`
	Headers map[string]string `yaml:"headers"`
	Body    string            `yaml:"body"`
	Timeout string            `yaml:"timeout"`
}

// Load reads, parses and validates the target file at path. Every error
// is one line, "file:line: key: what is wrong", that names the line of the
// offending key; unknown keys are errors.
//
// Each field may hold only the placeholders the format expands in it:
//   - service.env and variants.*.env values: {{redis_url}}, {{pg_url}},
//     {{pg_schema}}, {{key_prefix}}, {{port}}, {{replica}}, {{lock_ttl_ms}};
//   - setup, truth.ledger, truth.sector: {{sector}}, {{seats}};
//   - lock_key: {{sector}}, {{seats}}, {{key_prefix}};
//   - request.path, request.headers values, request.body: {{sector}},
//     {{seats}}, {{request_id}}, {{contender}};
//   - any other field: none.
//
// A placeholder is written without spaces; {{ name }} is an error. Text
// between double braces that is no name, such as JSON, is left alone.
func Load(path string) (*File, error) {
	b, err := bounded.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("target file: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("target file: %w", err)
	}
	return parse(path, dir, b)
}

// parse decodes the bytes b of the file at path twice: into a tree of
// nodes, which knows the line of every key, and strictly into rawFile;
// then it validates and converts the result.
func parse(path, dir string, b []byte) (*File, error) {
	d := doc{path: path}
	if err := yaml.Unmarshal(b, &d.root); err != nil {
		return nil, d.yamlErr(err)
	}
	if d.root.Kind != yaml.DocumentNode || len(d.root.Content) == 0 {
		return nil, fmt.Errorf("%s: the file is empty", path)
	}
	d.root = *d.root.Content[0]
	if d.root.Kind != yaml.MappingNode {
		return nil, d.errAt(nil, "the file must be a mapping of keys (name, service, request, ...)")
	}
	var raw rawFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, d.yamlErr(err)
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: the file must hold one YAML document", path)
	}
	f, err := d.convert(raw)
	if err != nil {
		return nil, err
	}
	f.Path, f.Dir = path, dir
	return f, nil
}

// convert validates raw and makes the File it describes.
func (d *doc) convert(raw rawFile) (*File, error) {
	if err := d.checkPlaceholders(&d.root, nil); err != nil {
		return nil, err
	}
	f := &File{Name: raw.Name, Setup: raw.Setup, LockKey: raw.LockKey, Truth: raw.Truth, Responses: raw.Responses}
	var err error
	if f.Service, f.URLs, err = d.replicas(raw); err != nil {
		return nil, err
	}
	if f.variants, err = d.variants(raw.Variants); err != nil {
		return nil, err
	}
	if f.Service != nil {
		for _, v := range f.variants {
			if err := d.portUnset(v.Env, f.Service.PortEnv, "variants", v.Name, "env"); err != nil {
				return nil, err
			}
		}
	}
	if f.Request, err = d.request(raw.Request); err != nil {
		return nil, err
	}
	if err := d.rules(raw.Responses); err != nil {
		return nil, err
	}
	if strings.TrimSpace(f.Truth.Ledger) == "" {
		return nil, d.errAt([]string{"truth", "ledger"}, "required: the query that reads the sales (request id, seat)")
	}
	if err := d.required(f); err != nil {
		return nil, err
	}
	if err := d.setupControl(f.Setup); err != nil {
		return nil, err
	}
	return f, nil
}

// required checks that the file uses the placeholders a race's evidence
// depends on: without them a correct service would look broken (every
// sale unmatched to its request, sales made outside the race's schema or
// seats) or hammer would touch what it did not create.
func (d *doc) required(f *File) error {
	has := func(name string, ss ...string) bool {
		for _, s := range ss {
			if slices.Contains(Placeholders(s), name) {
				return true
			}
		}
		return false
	}
	headers := slices.Collect(maps.Values(f.Request.Headers))
	switch {
	case !has(VarRequestID, append(headers, f.Request.Path, f.Request.Body)...):
		return d.errAt([]string{"request"}, "must send {{request_id}} (in the path, a header or the body): it ties each sale row to its request")
	case !has(VarSeats, f.Setup):
		return d.errAt([]string{"setup"}, "must use {{seats}}: the sector must hold the race's seats")
	}
	if err := d.checkKeys(f); err != nil {
		return err
	}
	return d.checkSchema(f)
}
