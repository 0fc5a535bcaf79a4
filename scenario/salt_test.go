package scenario

import (
	"strings"
	"testing"
)

// TestSaltBound: keyspace.salt is at most 65,536 buckets (docs/scenario.md, "Limits,
// overload and interruption": a read of a salted key visits every bucket). The largest
// allowed count resolves as given; one more, and a negative count, are refused with one
// problem at keyspace.salt that says what the limit is.
func TestSaltBound(t *testing.T) {
	resolve := func(salt int) (*Resolved, []FieldError) {
		f := minimal()
		f.Keyspace.Salt = &salt
		return Resolve(&f)
	}
	for _, salt := range []int{0, 1, 2, 65_536} {
		s, probs := resolve(salt)
		if len(probs) != 0 {
			t.Errorf("salt = %d refused: %v", salt, probs)
			continue
		}
		if s.Salt != salt {
			t.Errorf("salt = %d resolved as %d", salt, s.Salt)
		}
	}
	for _, tc := range []struct {
		salt int
		msg  string
	}{
		{65_537, "must be at most 65536 buckets (got 65537)"},
		{-1, "must be at least 0 (got -1)"},
	} {
		_, probs := resolve(tc.salt)
		if len(probs) != 1 || probs[0].Key != "keyspace.salt" || !strings.Contains(probs[0].Error(), tc.msg) {
			t.Errorf("salt = %d: problems %v, want one at keyspace.salt saying %q", tc.salt, probs, tc.msg)
		}
	}
}
