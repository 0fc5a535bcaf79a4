// Package numfmt writes numbers for people, the one way every output and doc uses: whole
// counts with thousands separators.
package numfmt

import "strconv"

// Count writes n with a comma between each group of three digits: 1,601,625, -96,048.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
