package verify

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// maxListed is how many items one detail names before "and N more".
const maxListed = 5

// sortedIDs returns the request ids keying m in natural order.
func sortedIDs[V any](m map[string]V) []string {
	return slices.SortedFunc(maps.Keys(m), compareIDs)
}

// compareIDs orders request ids so that runs of digits compare as numbers
// ("p0-g2" before "p0-g10"), falling back to byte order so distinct ids
// never compare equal.
func compareIDs(a, b string) int {
	if c := compareNatural(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// compareNatural compares a and b with digit runs taken as numbers.
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da == 0 || db == 0 {
			if c := cmp.Compare(a[0], b[0]); c != 0 {
				return c
			}
			a, b = a[1:], b[1:]
			continue
		}
		na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
		if c := cmp.Compare(len(na), len(nb)); c != 0 {
			return c
		}
		if c := strings.Compare(na, nb); c != 0 {
			return c
		}
		a, b = a[da:], b[db:]
	}
	return cmp.Compare(len(a), len(b))
}

// digits returns the length of the run of ASCII digits that starts s.
func digits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// plural renders "1 seat" or "3 seats".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// pick returns one when n is 1 and many otherwise.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// capList joins items with ", ", naming at most maxListed of them and
// counting the rest as "and N more".
func capList(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}

// andList joins numbers as "12", "12 and 13" or "12, 13 and 40".
func andList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
