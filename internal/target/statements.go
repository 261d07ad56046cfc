package target

import "strings"

// statements splits SQL into its statements at the semicolons that end
// them, as psql does: a semicolon inside a quoted string ('…', E'…',
// "…"), a dollar-quoted body ($$…$$, $tag$…$tag$) or a comment (-- …,
// /* … */, which nest) ends nothing. Statements are trimmed; empty ones
// (comments only) are left out.
func statements(sql string) []string {
	var out []string
	start := 0
	add := func(end int) {
		if s := strings.TrimSpace(sql[start:end]); !onlyComments(s) {
			out = append(out, s)
		}
	}
	for i := 0; i < len(sql); {
		switch c := sql[i]; {
		case c == ';':
			add(i)
			i++
			start = i
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
		default:
			i++
		}
	}
	add(len(sql))
	return out
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
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		default:
			return false
		}
	}
	return true
}
