package target

import (
	"slices"
	"testing"
)

func TestStatements(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want []string
	}{
		{name: "two", sql: "CREATE TABLE a (x int);\n INSERT INTO a VALUES (1);\n", want: []string{"CREATE TABLE a (x int)", "INSERT INTO a VALUES (1)"}},
		{name: "no final semicolon", sql: "SELECT 1; SELECT 2", want: []string{"SELECT 1", "SELECT 2"}},
		{name: "semicolon in a string", sql: "INSERT INTO a VALUES ('x;y', 'it''s;'); SELECT 1", want: []string{"INSERT INTO a VALUES ('x;y', 'it''s;')", "SELECT 1"}},
		{name: "escape string", sql: `SELECT E'a\';b'; SELECT 2`, want: []string{`SELECT E'a\';b'`, "SELECT 2"}},
		{name: "name ending in e", sql: `SELECT 'a\'; SELECT 2`, want: []string{`SELECT 'a\'`, "SELECT 2"}},
		{name: "quoted name", sql: `CREATE TABLE "a;b" (x int); SELECT 1`, want: []string{`CREATE TABLE "a;b" (x int)`, "SELECT 1"}},
		{name: "dollar body", sql: "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql; SELECT 2",
			want: []string{"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql", "SELECT 2"}},
		{name: "tagged dollar body", sql: "DO $x$ BEGIN PERFORM 1; END $x$; SELECT $1", want: []string{"DO $x$ BEGIN PERFORM 1; END $x$", "SELECT $1"}},
		{name: "comments", sql: "-- a; b\nSELECT 1; /* c; /* d; */ e; */ SELECT 2; -- only a comment;\n", want: []string{"-- a; b\nSELECT 1", "/* c; /* d; */ e; */ SELECT 2"}},
		{name: "empty", sql: " ;; \n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := statements(tt.sql); !slices.Equal(got, tt.want) {
				t.Errorf("statements(%q)\n got %q\nwant %q", tt.sql, got, tt.want)
			}
		})
	}
}

// TestStatementsBodies: the BEGIN ATOMIC … END body of a routine, with
// CASE … END in it, and parentheses hold their semicolons, as in psql.
func TestStatementsBodies(t *testing.T) {
	sql := "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n SELECT CASE WHEN true THEN 1 END;\n SELECT 2;\nEND; SELECT 3;\n" +
		"CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO a VALUES (1); END; BEGIN; end;"
	want := []string{
		"CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n SELECT CASE WHEN true THEN 1 END;\n SELECT 2;\nEND",
		"SELECT 3",
		"CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO a VALUES (1); END",
		"BEGIN", "end",
	}
	if got := statements(sql); !slices.Equal(got, want) {
		t.Errorf("statements(%q)\n got %q\nwant %q", sql, got, want)
	}
}
