package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shardsim/shardsim/sim"
)

// dayRE finds a number of days: digits with an optional fraction, not preceded by another
// digit or point (so "1.5.5d" stays malformed), followed by d.
var dayRE = regexp.MustCompile(`(^|[^0-9.])(\d+(?:\.\d+)?)d`)

// durationRE matches Go's duration syntax (time.ParseDuration), so that a duration that
// fails to parse only because it overflows can be told from one that is malformed.
var durationRE = regexp.MustCompile(`^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// ParseDuration reads a duration in Go syntax extended with a "d" unit of 24 hours:
// "250us", "1.5ms", "15m", "2h", "30d", "1d12h".
func ParseDuration(s string) (sim.Time, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty duration")
	}
	var bad error
	t = dayRE.ReplaceAllStringFunc(t, func(m string) string {
		sub := dayRE.FindStringSubmatch(m)
		v, err := strconv.ParseFloat(sub[2], 64)
		if err != nil {
			bad = err
		}
		return sub[1] + strconv.FormatFloat(v*24, 'f', -1, 64) + "h"
	})
	if bad != nil {
		return 0, fmt.Errorf("not a duration %q", s)
	}
	d, err := time.ParseDuration(t)
	if err != nil && durationRE.MatchString(t) {
		// Well formed, so past the 292 years of int64 nanoseconds.
		return 0, fmt.Errorf("too large %q: a duration is at most 10000d (about 27 years), and less where a key says so", s)
	}
	if err != nil {
		return 0, fmt.Errorf("not a duration %q (use Go syntax plus d for days: \"250us\", \"15m\", \"2h\", \"30d\")", s)
	}
	return sim.Time(d), nil
}

// ParseClock reads a wall-clock time of day, "06:00" or "08:15:30", as an offset from
// midnight.
func ParseClock(s string) (sim.Time, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("not a clock time %q (want HH:MM or HH:MM:SS)", s)
	}
	limits := []int{24, 60, 60}
	units := []sim.Time{sim.Hour, sim.Minute, sim.Second}
	var t sim.Time
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v >= limits[i] || len(p) > 2 || strings.ContainsAny(p, "+-") {
			return 0, fmt.Errorf("not a clock time %q (want HH:MM or HH:MM:SS)", s)
		}
		t += sim.Time(v) * units[i]
	}
	return t, nil
}

// ParseInstant reads an instant inside the run: a clock time ("08:15") measured from the
// scenario's start (the next such time of day at or after it), or a duration since t=0.
func ParseInstant(s string, start sim.Time) (sim.Time, error) {
	if strings.Contains(s, ":") {
		c, err := ParseClock(s)
		if err != nil {
			return 0, err
		}
		d := c - start
		if d < 0 {
			d += 24 * sim.Hour
		}
		return d, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not an instant %q (want a clock time like \"08:15\" or a duration since the start like \"2h\")", s)
	}
	return d, nil
}

// FormatClock formats start+t as a wall-clock label: "08:15", or "08:15:30" when seconds
// matter, wrapping at midnight.
func FormatClock(start, t sim.Time) string {
	c := (start + t) % (24 * sim.Hour)
	if c < 0 {
		c += 24 * sim.Hour
	}
	h, m, sec := c/sim.Hour, c%sim.Hour/sim.Minute, c%sim.Minute/sim.Second
	if sec != 0 {
		return fmt.Sprintf("%02d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%02d:%02d", h, m)
}

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
