package scenario

import (
	"strings"
	"testing"
)

// FuzzKeyPart feeds arbitrary text to the key-part parser: it must never panic, and what it
// accepts must name a field and a known function, with the argument its function needs.
func FuzzKeyPart(f *testing.F) {
	for _, s := range []string{"order_id", "hour(ts)", `bucket(ts, "15m")`, "hash(user_id, 16)", "day( ts )",
		"hour(ts, )", "hash(x)", "bucket(ts)", "((", "hour(ts", `bucket(ts, "")`, "minute(ts)", "f(x, y, z)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseKeyPart(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if !identRE.MatchString(p.Field) {
			t.Fatalf("accepted %q with field %q", s, p.Field)
		}
		switch p.Fn {
		case "":
			if strings.ContainsAny(s, "(),") {
				t.Fatalf("accepted %q as a plain field", s)
			}
		case "hour", "day", "minute":
			if p.Arg != "" {
				t.Fatalf("accepted %q with an argument", s)
			}
		case "bucket", "hash":
			if p.Arg == "" {
				t.Fatalf("accepted %q without an argument", s)
			}
		default:
			t.Fatalf("accepted %q with unknown function %q", s, p.Fn)
		}
	})
}
