package target

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hammer-load/hammer/internal/escape"
)

// setupControl refuses setup SQL with a statement that would end or
// change the transaction hammer runs the setup in, or move it out of the
// race's schema: run as one query, such a statement commits the schema
// hammer made for it, or lets the statements after it make tables
// outside that schema, where hammer would leave them. The error names
// the statement's line when the setup is a literal block (setup: |),
// else the line of the setup key. A statement inside a function body
// ($$ … $$) is not looked at: PostgreSQL refuses COMMIT there when the
// body runs inside a transaction.
func (d *doc) setupControl(setup string) error {
	for i, sp := range spans(setup) {
		stmt := setup[sp[0]:sp[1]]
		if why := txControl(stmt); why != "" {
			return fmt.Errorf("%s:%d: %s", d.path, d.setupLine(setup, sp[0]), escape.Line(fmt.Sprintf(
				"setup: statement %d (%s) %s: hammer runs the setup in a transaction of its own, in the race's schema; remove it",
				i+1, shorten(oneLine(stmt), 60), why)))
		}
	}
	return nil
}

// setupLine returns the line of the file that holds byte off of the
// setup SQL: exact in a literal block, whose text starts on the line
// after its key and keeps every line break; else the key's line.
func (d *doc) setupLine(setup string, off int) int {
	key, val := child(&d.root, "setup")
	if val == nil {
		return d.root.Line
	}
	if val.Style&yaml.LiteralStyle == 0 {
		return key.Line
	}
	return val.Line + 1 + strings.Count(setup[:off], "\n")
}

// txControl says why stmt would end or change the setup's transaction
// or leave its schema; "" when it would not.
func txControl(stmt string) string {
	w := words(stmt, 3)
	at := func(i int) string {
		if i < len(w) {
			return w[i]
		}
		return ""
	}
	switch at(0) {
	case "begin", "start", "commit", "end", "rollback", "abort":
		return "ends or begins a transaction"
	case "savepoint", "release":
		return "changes the transaction"
	case "prepare":
		if at(1) == "transaction" {
			return "ends the transaction"
		}
	case "set", "reset":
		i := 1
		if at(1) == "session" || at(1) == "local" {
			i = 2
		}
		switch {
		case at(i) == "search_path", at(i) == "schema":
			return "moves the search_path out of the race's schema"
		case at(i) == "role", at(i) == "authorization", at(1) == "session" && at(2) == "authorization":
			return "changes the role the setup runs as"
		case at(0) == "reset" && at(1) == "all":
			return "moves the search_path out of the race's schema"
		}
	}
	return ""
}

// words returns the first n words of stmt, lower-cased, skipping
// comments and white space; a quoted name counts as the name.
func words(stmt string, n int) []string {
	var out []string
	for i := 0; i < len(stmt) && len(out) < n; {
		switch c := stmt[i]; {
		case isSpace(c):
			i++
		case strings.HasPrefix(stmt[i:], "--"):
			i = lineEnd(stmt, i)
		case strings.HasPrefix(stmt[i:], "/*"):
			i = commentEnd(stmt, i)
		case c == '"':
			j := quoteEnd(stmt, i, '"', false)
			out = append(out, strings.ToLower(strings.Trim(stmt[i:j], `"`)))
			i = j
		case isIdent(c):
			j := i
			for j < len(stmt) && isIdent(stmt[j]) {
				j++
			}
			out = append(out, strings.ToLower(stmt[i:j]))
			i = j
		default:
			return out
		}
	}
	return out
}
