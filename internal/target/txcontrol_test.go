package target

import (
	"strings"
	"testing"
)

// TestLoadRefusesTransactionControl: setup SQL that would end or change
// the transaction hammer runs it in, or leave the race's schema, is
// refused when the file loads, naming the statement's line; the same
// words inside a function body, a string or a comment are not.
func TestLoadRefusesTransactionControl(t *testing.T) {
	const setupLine = "  CREATE TABLE sectors (id int PRIMARY KEY, capacity int NOT NULL, available int NOT NULL);\n"
	tests := []struct {
		name, insert, want string // insert goes on line 16; want "" loads
	}{
		{"commit", "  COMMIT;\n", "target.yaml:16: setup: statement 2 (COMMIT) ends or begins a transaction"},
		{"commit after a comment", "  /* done */ -- now\n  commit;\n", "target.yaml:16: setup: statement 2 (/* done */ -- now commit) ends or begins a transaction"},
		{"end", "  END;\n", "target.yaml:16: setup: statement 2 (END)"},
		{"begin", "  BEGIN;\n", "target.yaml:16: setup: statement 2 (BEGIN)"},
		{"start transaction", "  START TRANSACTION ISOLATION LEVEL SERIALIZABLE;\n", "statement 2 (START TRANSACTION"},
		{"rollback", "  ROLLBACK;\n", "statement 2 (ROLLBACK)"},
		{"abort", "  ABORT;\n", "statement 2 (ABORT)"},
		{"savepoint", "  SAVEPOINT a;\n", "statement 2 (SAVEPOINT a) changes the transaction"},
		{"rollback to", "  ROLLBACK TO SAVEPOINT a;\n", "statement 2 (ROLLBACK TO SAVEPOINT a)"},
		{"release", "  RELEASE a;\n", "statement 2 (RELEASE a)"},
		{"prepare transaction", "  PREPARE TRANSACTION 'x';\n", "statement 2 (PREPARE TRANSACTION 'x') ends the transaction"},
		{"set search_path", "  SET search_path TO public;\n", "statement 2 (SET search_path TO public) moves the search_path"},
		{"set local search_path", "  SET LOCAL search_path = public;\n", "moves the search_path"},
		{"set session quoted", "  set session \"search_path\" = public;\n", "moves the search_path"},
		{"set schema", "  SET SCHEMA 'public';\n", "moves the search_path"},
		{"reset", "  RESET search_path;\n", "moves the search_path"},
		{"reset all", "  RESET ALL;\n", "moves the search_path"},
		{"set role", "  SET ROLE other;\n", "changes the role"},
		{"session authorization", "  SET SESSION AUTHORIZATION other;\n", "changes the role"},
		{"later line", "  CREATE TABLE a (x int);\n\n  CREATE TABLE b (x int); COMMIT;\n", "target.yaml:18: setup: statement 4 (COMMIT)"},
		{"commit in a DO body", "  DO $$ BEGIN COMMIT; END $$;\n", ""},
		{"commit in a function body", "  CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $f$\n  BEGIN\n    COMMIT;\n  END\n  $f$;\n", ""},
		{"end of a SQL-standard body", "  CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql\n  BEGIN ATOMIC\n    SELECT CASE WHEN true THEN 1 END;\n    SELECT 2;\n  END;\n", ""},
		{"in a string or comment", "  INSERT INTO sectors VALUES (0, 0, 0); -- COMMIT;\n  SELECT 'COMMIT; ROLLBACK';\n", ""},
		{"set of another setting", "  SET LOCAL statement_timeout = '5s';\n", ""},
		{"prepared statement", "  PREPARE p AS SELECT 1;\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Replace(base, setupLine, setupLine+tt.insert, 1)
			_, err := parse("target.yaml", "/tmp", []byte(text))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one saying %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("error %q is more than one line", err)
			}
		})
	}
}

// TestLoadRefusesTransactionControlFlow: a setup written on the key's
// line, not as a block, names that line.
func TestLoadRefusesTransactionControlFlow(t *testing.T) {
	text := strings.Replace(base, "setup: |\n", "setup: \"CREATE TABLE a (x int); COMMIT; INSERT INTO sectors VALUES ({{sector}}, {{seats}}, {{seats}})\"\nx_setup: |\n", 1)
	text = strings.Replace(text, "x_setup: |\n", "", 1)
	text = strings.Replace(text, "  CREATE TABLE sectors (id int PRIMARY KEY, capacity int NOT NULL, available int NOT NULL);\n  INSERT INTO sectors VALUES ({{sector}}, {{seats}}, {{seats}});\n", "", 1)
	_, err := parse("target.yaml", "/tmp", []byte(text))
	if want := "target.yaml:14: setup: statement 2 (COMMIT)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one saying %q", err, want)
	}
}
