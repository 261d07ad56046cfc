// Package redact keeps the passwords of a run's server URLs out of what
// hammer prints and writes. A Redactor knows the secrets — the password in
// the userinfo of each URL and the password= parameter of a PostgreSQL URL
// or keyword/value string — and masks them, in every form they may be
// quoted in (plain, percent-encoded, query-escaped), in strings and in
// everything written through a Writer.
package redact

import (
	"cmp"
	"io"
	"net/url"
	"slices"
	"strings"
)

// Mask is what a secret is replaced with.
const Mask = "xxxxx"

// Redactor masks a fixed set of secrets. It is safe for concurrent use;
// the nil Redactor masks nothing.
type Redactor struct {
	r *strings.Replacer // nil when there is nothing to mask
}

// URLs returns a Redactor for the passwords held by the given URLs or
// PostgreSQL keyword/value strings. Strings that hold no password add
// nothing, so any text may be passed.
func URLs(urls ...string) *Redactor {
	var pws []string
	for _, u := range urls {
		pws = append(pws, Secrets(u)...)
	}
	return Passwords(pws...)
}

// Passwords returns a Redactor for the given passwords, each masked in its
// plain and escaped forms. Empty passwords are ignored.
func Passwords(pws ...string) *Redactor {
	seen := map[string]bool{"": true}
	var forms []string
	for _, pw := range pws {
		for _, f := range escapes(pw) {
			if !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		return &Redactor{}
	}
	// At one position the first listed match wins: longest first, so that
	// a secret is never half masked because a shorter one is its prefix.
	slices.SortStableFunc(forms, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Mask)
	}
	return &Redactor{r: strings.NewReplacer(pairs...)}
}

// escapes returns pw as it may appear in text: plain, percent-decoded
// (pw as written in a URL may be encoded) and each of those as a query,
// path or userinfo escape.
func escapes(pw string) []string {
	if pw == "" {
		return nil
	}
	plain := []string{pw}
	if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
		plain = append(plain, dec)
	}
	var out []string
	for _, p := range plain {
		userinfo := strings.TrimPrefix(url.UserPassword("u", p).String(), "u:")
		out = append(out, p, url.QueryEscape(p), url.PathEscape(p), userinfo)
	}
	return out
}

// String returns s with every secret masked.
func (r *Redactor) String(s string) string {
	if r == nil || r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// Writer returns a Writer that masks the secrets in what it passes on to
// w. Each Write is masked on its own: a secret split across two Writes
// passes unmasked, so write whole messages (fmt.Fprintf does). With nothing
// to mask, Writer returns w itself.
func (r *Redactor) Writer(w io.Writer) io.Writer {
	if r == nil || r.r == nil {
		return w
	}
	return &writer{r: r, w: w}
}

// writer is the Writer returned by Redactor.Writer.
type writer struct {
	r *Redactor
	w io.Writer
}

// Write masks p and writes the result. It reports len(p) when all of the
// masked text was written, and 0 with the error otherwise.
func (w *writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.r.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the Writer underneath, so that a caller can still ask
// what it writes to (say, whether it is a terminal).
func (w *writer) Unwrap() io.Writer { return w.w }

// Secrets returns the passwords rawURL holds: the password of its
// userinfo (and, when it holds a URL delimiter, its longer pieces) and the
// value of each password= parameter (of a URL's query or of a PostgreSQL
// keyword/value string). It works without rawURL parsing,
// best effort: on odd input it may return more than a password, which
// only masks more.
func Secrets(rawURL string) []string {
	var out []string
	if pw := userinfoPassword(rawURL); pw != "" {
		out = append(out, pw)
		out = append(out, fragments(pw)...)
	}
	if u, err := url.Parse(rawURL); err == nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			out = append(out, pw)
		}
		out = append(out, u.Query()["password"]...)
	}
	return append(out, passwordParams(rawURL)...)
}

// userinfoPassword returns the text between the first ':' after the
// scheme and the last '@' of rawURL.
func userinfoPassword(rawURL string) string {
	_, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return ""
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(rest[:at], ":")
	return pw
}

// minFragment is the shortest piece of a password masked on its own:
// shorter pieces give little away and would mask common text.
const minFragment = 4

// fragments returns the pieces of a password as typed in a URL, cut at
// the delimiters of RFC 3986 (":/?#[]@"). A password with such a character
// left unescaped breaks its URL, and the parser's error may quote the
// piece it cut off, which the whole password would not match.
func fragments(pw string) []string {
	pieces := strings.FieldsFunc(pw, func(r rune) bool { return strings.ContainsRune(":/?#[]@", r) })
	if len(pieces) < 2 {
		return nil
	}
	var out []string
	for _, p := range pieces {
		if len(p) >= minFragment {
			out = append(out, p)
		}
	}
	return out
}

// passwordParams returns the raw value after each "password=" in s, up to
// the next '&' or space, or between single quotes when it is quoted.
func passwordParams(s string) []string {
	const key = "password="
	var out []string
	for {
		i := strings.Index(s, key)
		if i < 0 {
			return out
		}
		s = s[i+len(key):]
		end := strings.IndexAny(s, "& \t\r\n")
		if strings.HasPrefix(s, "'") {
			s = s[1:]
			end = strings.IndexByte(s, '\'')
		}
		if end < 0 {
			end = len(s)
		}
		if s[:end] != "" {
			out = append(out, s[:end])
		}
		s = s[end:]
	}
}
