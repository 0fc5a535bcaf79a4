package scenario

import (
	"fmt"
	"regexp"
	"strings"
)

// keyPart is one parsed part of keyspace.key.
type keyPart struct {
	Fn    string // "" for a plain field, else hour, day, minute, bucket, hash
	Field string
	Arg   string // bucket width or hash modulus, as written
}

var (
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	callRE  = regexp.MustCompile(`^([a-z]+)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*(,\s*(.*?)\s*)?\)$`)
)

// parseKeyPart parses "order_id", "hour(ts)", "bucket(ts, \"15m\")" or "hash(user_id, 16)".
func parseKeyPart(s string) (keyPart, error) {
	s = strings.TrimSpace(s)
	if identRE.MatchString(s) {
		return keyPart{Field: s}, nil
	}
	m := callRE.FindStringSubmatch(s)
	if m == nil {
		return keyPart{}, fmt.Errorf("cannot read key part %q (want a field name, hour(f), day(f), minute(f), bucket(f, \"15m\") or hash(f, N))", s)
	}
	p := keyPart{Fn: m[1], Field: m[2], Arg: m[4]}
	if m[3] != "" && p.Arg == "" {
		return p, fmt.Errorf("key part %q: an argument is missing after the comma", s)
	}
	switch p.Fn {
	case "hour", "day", "minute":
		if p.Arg != "" {
			return p, fmt.Errorf("key part %q: %s() takes one field", s, p.Fn)
		}
	case "bucket":
		if p.Arg == "" {
			return p, fmt.Errorf("key part %q: bucket() needs a width, as in bucket(ts, \"15m\")", s)
		}
		if p.Arg = strings.Trim(p.Arg, `"'`); p.Arg == "" {
			return p, fmt.Errorf("key part %q: bucket() needs a width, as in bucket(ts, \"15m\")", s)
		}
	case "hash":
		if p.Arg == "" {
			return p, fmt.Errorf("key part %q: hash() needs a modulus, as in hash(user_id, 16)", s)
		}
	default:
		return p, fmt.Errorf("key part %q: unknown function %q (want hour, day, minute, bucket or hash)", s, p.Fn)
	}
	return p, nil
}
