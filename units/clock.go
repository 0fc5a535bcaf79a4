package units

import (
	"fmt"
	"strconv"
	"strings"
)

// day is a day of simulated time.
const day = 24 * Hour

// ParseClock reads a wall-clock time of day, "06:00" or "08:15:30", as an offset from
// midnight.
func ParseClock(s string) (Time, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("not a clock time %q (want HH:MM or HH:MM:SS)", s)
	}
	limits := []int{24, 60, 60}
	unit := []Time{Hour, Minute, Second}
	var t Time
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v >= limits[i] || len(p) > 2 || strings.ContainsAny(p, "+-") {
			return 0, fmt.Errorf("not a clock time %q (want HH:MM or HH:MM:SS)", s)
		}
		t += Time(v) * unit[i]
	}
	return t, nil
}

// ParseInstant reads an instant inside the run: a clock time ("08:15") measured from the
// scenario's start (the next such time of day at or after it), or a duration since t=0.
func ParseInstant(s string, start Time) (Time, error) {
	if strings.Contains(s, ":") {
		c, err := ParseClock(s)
		if err != nil {
			return 0, err
		}
		d := c - start
		if d < 0 {
			d += day
		}
		return d, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not an instant %q (want a clock time like \"08:15\" or a duration since the start like \"2h\")", s)
	}
	return d, nil
}

// ClockStyle is a way of writing a wall-clock time (Clock).
type ClockStyle uint8

const (
	// TimeOfDay is minutes, with the seconds when they are not 0, wrapping at midnight:
	// "08:15", "08:15:30", "00:00". Tables, alerts and chart axes use it.
	TimeOfDay ClockStyle = iota
	// Exact is down to the nanosecond when it matters ("08:15", "08:15:30",
	// "08:15:30.250", "08:15:30.000000001"), prefixed by the day when it is not the
	// run's first: "d-1 23:00", "d+1 00:15". Key values (a row's time) use it.
	Exact
)

// Clock writes the wall-clock time start+t in style, where start is the run's start as an
// offset from midnight (docs/scenario.md, "start") and t a time since t=0.
func Clock(start, t Time, style ClockStyle) string {
	if style == Exact {
		return exactClock(start + t)
	}
	c := (start + t) % day
	if c < 0 {
		c += day
	}
	h, m, sec := c/Hour, c%Hour/Minute, c%Minute/Second
	if sec != 0 {
		return fmt.Sprintf("%02d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%02d:%02d", h, m)
}

// exactClock is Clock's Exact style, for ns from midnight of the run's first day.
func exactClock(ns Time) string {
	d := floorDiv(ns, day)
	c := ns - d*day
	h, m, sec := c/Hour, c%Hour/Minute, c%Minute/Second
	sub := c % Second
	var t string
	switch {
	case sub%Millisecond != 0:
		t = fmt.Sprintf("%02d:%02d:%02d.%09d", h, m, sec, sub)
		t = strings.TrimRight(t, "0")
	case sub != 0:
		t = fmt.Sprintf("%02d:%02d:%02d.%03d", h, m, sec, sub/Millisecond)
	case sec != 0:
		t = fmt.Sprintf("%02d:%02d:%02d", h, m, sec)
	default:
		t = fmt.Sprintf("%02d:%02d", h, m)
	}
	if d != 0 {
		t = fmt.Sprintf("d%+d %s", d, t)
	}
	return t
}

// floorDiv is a/b rounded toward minus infinity.
func floorDiv(a, b Time) Time {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
