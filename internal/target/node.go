package target

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hammer-load/hammer/internal/escape"
)

// doc is the node tree of a target file: it knows the line of every key,
// so that an error can name the line of what it is about. A path is the
// keys from the top of the file down to a field, "[i]" for the i-th item
// of a list.
type doc struct {
	path string    // the file, as named to Load
	root yaml.Node // the top-level mapping
}

// errAt returns the error msg about the field at path, as one line:
// "file:line: field: msg".
func (d *doc) errAt(path []string, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if len(path) > 0 {
		msg = show(path) + ": " + msg
	}
	return fmt.Errorf("%s:%d: %s", d.path, d.lineOf(path), escape.Line(msg))
}

// needErr is the error of a key at path whose value is not what: one
// that is missing is "required: what"; one given, "must be what".
func (d *doc) needErr(path []string, what string) error {
	if d.has(path...) {
		return d.errAt(path, "must be %s", what)
	}
	return d.errAt(path, "required: %s", what)
}

// show renders path as a reader writes it: service.env.PORT, responses[1].seat.
func show(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// index is the path element of the i-th item of a list.
func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

// lineOf returns the line of the key at path, or of its nearest ancestor
// the file has.
func (d *doc) lineOf(path []string) int {
	line := d.root.Line
	n := &d.root
	for _, p := range path {
		key, val := child(n, p)
		if val == nil {
			break
		}
		line, n = key.Line, val
	}
	return line
}

// has reports whether the file has a key at path.
func (d *doc) has(path ...string) bool { return d.lookup(path) != nil }

// lookup returns the value at path; nil when the file has none.
func (d *doc) lookup(path []string) *yaml.Node {
	n := &d.root
	for _, p := range path {
		if _, n = child(n, p); n == nil {
			return nil
		}
	}
	return n
}

// child returns the key node and the value node of element p of n (a
// mapping key or a list index); nil when n has none.
func child(n *yaml.Node, p string) (key, val *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p {
				return n.Content[i], n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		i, err := strconv.Atoi(strings.Trim(p, "[]"))
		if err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i], n.Content[i]
		}
	}
	return nil, nil
}

// keys returns the keys of the mapping at path in file order.
func (d *doc) keys(path ...string) []string {
	n := d.lookup(path)
	var ks []string
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		ks = append(ks, n.Content[i].Value)
	}
	return ks
}

// visit calls fn with every value of the tree under n (at path) that is a
// scalar, and its path; it stops at the first error fn returns.
func visit(n *yaml.Node, path []string, fn func(n *yaml.Node, path []string) error) error {
	switch n.Kind {
	case yaml.ScalarNode:
		return fn(n, path)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := visit(n.Content[i+1], extend(path, n.Content[i].Value), fn); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := visit(c, extend(path, index(i)), fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyOnLine returns the path of the key called name on the given line or,
// when name is empty, of the outermost value of the given kind that starts
// on it; nil when there is none.
func (d *doc) keyOnLine(line int, name string, kind yaml.Kind) []string {
	var found []string
	var walk func(n *yaml.Node, path []string)
	walk = func(n *yaml.Node, path []string) {
		for i := 0; found == nil && i < len(n.Content); i++ {
			var key *yaml.Node
			val, p := n.Content[i], extend(path, index(i))
			if n.Kind == yaml.MappingNode {
				if i%2 == 1 {
					continue
				}
				key, val, p = n.Content[i], n.Content[i+1], extend(path, n.Content[i].Value)
			}
			if (name == "" && val.Line == line && val.Kind == kind) || (key != nil && key.Line == line && key.Value == name) {
				found = p
				return
			}
			walk(val, p)
		}
	}
	walk(&d.root, nil)
	return found
}

// extend returns path with p added, sharing nothing with path.
func extend(path []string, p string) []string {
	return append(path[:len(path):len(path)], p)
}

// yamlErr turns an error of the YAML decoder into one line that names the
// file, the line and, where the line holds one, the key.
func (d *doc) yamlErr(err error) error {
	msg := err.Error()
	more := 0
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg, more = te.Errors[0], len(te.Errors)-1
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr != nil {
		return fmt.Errorf("%s: %s", d.path, escape.Line(msg))
	}
	_, msg, _ = strings.Cut(msg, ": ")
	out := d.explain(line, msg)
	if more > 0 {
		out += fmt.Sprintf(" (and %d more)", more)
	}
	return fmt.Errorf("%s:%d: %s", d.path, line, escape.Line(out))
}

// explain rewrites a message of the YAML decoder about line in the words
// of the target file: the key it is about and what was wanted.
func (d *doc) explain(line int, msg string) string {
	if rest, ok := strings.CutPrefix(msg, "field "); ok {
		if key, _, ok := strings.Cut(rest, " not found in type "); ok {
			if p := d.keyOnLine(line, key, 0); p != nil {
				return show(p) + ": unknown key"
			}
			return fmt.Sprintf("unknown key %q", key)
		}
	}
	kind := yaml.ScalarNode
	if rest, ok := strings.CutPrefix(msg, "cannot unmarshal !!"); ok {
		if got, want, ok := strings.Cut(rest, " into "); ok {
			msg = fmt.Sprintf("want %s, got %s", kindOf(want), gotOf(got))
			kind = map[string]yaml.Kind{"seq": yaml.SequenceNode, "map": yaml.MappingNode}[got]
			if kind == 0 {
				kind = yaml.ScalarNode
			}
		}
	}
	if p := d.keyOnLine(line, "", kind); p != nil {
		return show(p) + ": " + msg
	}
	return msg
}

// kindOf names the Go type the decoder wanted in the words of YAML.
func kindOf(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "target."), strings.HasPrefix(goType, "*target."):
		return "a mapping"
	case strings.HasPrefix(goType, "int"):
		return "an integer"
	}
	return "a string"
}

// gotOf names what the file held, from the decoder's "seq", "map" or
// "str `text`".
func gotOf(got string) string {
	switch got {
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	}
	if _, text, ok := strings.Cut(got, " "); ok {
		return strings.Trim(text, "`")
	}
	return got
}
