package target

import "strings"

// statements splits SQL into its statements at the semicolons that end
// them, as psql does: a semicolon inside a quoted string ('…', E'…',
// "…"), a dollar-quoted body ($$…$$, $tag$…$tag$), a comment (-- …,
// /* … */, which nest), parentheses or the BEGIN ATOMIC … END body of a
// CREATE FUNCTION or PROCEDURE ends nothing. Statements are trimmed;
// empty ones (comments only) are left out.
func statements(sql string) []string {
	var out []string
	for _, sp := range spans(sql) {
		out = append(out, sql[sp[0]:sp[1]])
	}
	return out
}

// spans returns where each statement of statements(sql) starts and ends
// in sql.
func spans(sql string) [][2]int {
	var out [][2]int
	start := 0
	var s stmtState
	add := func(end int) {
		b, e := start, end
		for b < e && isSpace(sql[b]) {
			b++
		}
		for e > b && isSpace(sql[e-1]) {
			e--
		}
		if !onlyComments(sql[b:e]) {
			out = append(out, [2]int{b, e})
		}
		s = stmtState{}
	}
	for i := 0; i < len(sql); {
		switch c := sql[i]; {
		case c == ';' && s.parens == 0 && s.begins == 0:
			add(i)
			i++
			start = i
		case c == '(':
			s.parens++
			i++
		case c == ')':
			s.parens--
			i++
		case c == '\'':
			i = quoteEnd(sql, i, '\'', escapes(sql, i))
		case c == '"':
			i = quoteEnd(sql, i, '"', false)
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			i = lineEnd(sql, i)
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			i = commentEnd(sql, i)
		case c == '$':
			i = dollarEnd(sql, i)
		case isIdent(c) && (c < '0' || c > '9') && (i == 0 || !isIdent(sql[i-1])):
			j := i + 1
			for j < len(sql) && isIdent(sql[j]) {
				j++
			}
			s.word(strings.ToLower(sql[i:j]))
			i = j
		default:
			i++
		}
	}
	add(len(sql))
	return out
}

// stmtState is what spans tracks of the statement it is in, as psql
// does, to tell the semicolons that end it: its depth of parentheses and
// of BEGIN … END (and CASE … END inside one) in the body of a CREATE [OR
// REPLACE] FUNCTION or PROCEDURE.
type stmtState struct {
	parens, begins int
	first          []string // the statement's first words, up to 4
}

// word notes the next word of the statement, lower-cased.
func (s *stmtState) word(w string) {
	if len(s.first) < 4 {
		s.first = append(s.first, w)
	}
	f := s.first
	routine := len(f) >= 2 && f[0] == "create" && (f[1] == "function" || f[1] == "procedure") ||
		len(f) >= 4 && f[0] == "create" && f[1] == "or" && f[2] == "replace" && (f[3] == "function" || f[3] == "procedure")
	if !routine || s.parens != 0 {
		return
	}
	switch {
	case w == "begin", w == "case" && s.begins > 0:
		s.begins++
	case w == "end" && s.begins > 0:
		s.begins--
	}
}

// isSpace says whether c is white space between statements.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// escapes says whether the string quoted at i is an E'…' string, in which
// a backslash escapes the next character.
func escapes(sql string, i int) bool {
	if i == 0 || (sql[i-1] != 'E' && sql[i-1] != 'e') {
		return false
	}
	return i == 1 || !isIdent(sql[i-2])
}

// quoteEnd returns the index after the string or identifier quoted by q
// at i; a doubled quote stands for itself.
func quoteEnd(sql string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(sql); j++ {
		switch {
		case backslash && sql[j] == '\\':
			j++
		case sql[j] == q && j+1 < len(sql) && sql[j+1] == q:
			j++
		case sql[j] == q:
			return j + 1
		}
	}
	return len(sql)
}

// lineEnd returns the index after the -- comment at i.
func lineEnd(sql string, i int) int {
	if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(sql)
}

// commentEnd returns the index after the /* comment */ at i, which may
// hold comments of its own.
func commentEnd(sql string, i int) int {
	depth := 0
	for j := i; j+1 < len(sql); j++ {
		switch sql[j : j+2] {
		case "/*":
			depth++
			j++
		case "*/":
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(sql)
}

// dollarEnd returns the index after the dollar-quoted body opened at i,
// or after the $ when none opens there (a parameter such as $1, or a $
// inside a name).
func dollarEnd(sql string, i int) int {
	if i > 0 && isIdent(sql[i-1]) {
		return i + 1
	}
	j := i + 1
	for j < len(sql) && sql[j] != '$' && isIdent(sql[j]) && !(j == i+1 && sql[j] >= '0' && sql[j] <= '9') {
		j++
	}
	if j >= len(sql) || sql[j] != '$' {
		return i + 1
	}
	tag := sql[i : j+1]
	if k := strings.Index(sql[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(sql)
}

// isIdent says whether c may be part of an unquoted name.
func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// onlyComments says whether s holds nothing but comments and space.
func onlyComments(s string) bool {
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "--"):
			i = lineEnd(s, i)
		case strings.HasPrefix(s[i:], "/*"):
			i = commentEnd(s, i)
		case isSpace(s[i]):
			i++
		default:
			return false
		}
	}
	return true
}
