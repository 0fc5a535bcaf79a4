package units

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// dayRE finds a number of days: digits with an optional fraction, not preceded by another
// digit or point (so "1.5.5d" stays malformed), followed by d.
var dayRE = regexp.MustCompile(`(^|[^0-9.])(\d+(?:\.\d+)?)d`)

// durationRE matches Go's duration syntax (time.ParseDuration), so that a duration that
// fails to parse only because it overflows can be told from one that is malformed.
var durationRE = regexp.MustCompile(`^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// ParseDuration reads a duration in Go syntax extended with a "d" unit of 24 hours:
// "250us", "1.5ms", "15m", "2h", "30d", "1d12h" (docs/scenario.md). Surrounding spaces are
// ignored; the error says whether the text is malformed or too large.
func ParseDuration(s string) (Time, error) {
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
	return Time(d), nil
}

// Duration writes d the way the flags take it (--duration, --window): Go's syntax without
// trailing zero units, "1m", "1h30m", "30s", "1.5s", "250ms".
func Duration(d Time) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// SpanStyle is a way of writing a span of time given in seconds (Seconds).
type SpanStyle uint8

const (
	// Flag is Duration's way, to the nanosecond: "3h", "1h30m", "45s", "1.5s". The run
	// reports' headers use it.
	Flag SpanStyle = iota
	// Elapsed is Go's syntax to a tenth of a second from a minute up and to the millisecond
	// from a second up (the time a partial run covered): "54m13.6s", "12.5s", "250ms".
	// Fractions of a nanosecond are dropped, not rounded.
	Elapsed
	// Decimal is seconds alone to the millisecond, as a scenario file may give them:
	// "1.5s", "0.001s", "5400s".
	Decimal
	// Short is a rough span for a sentence: "4.2 s" under ten seconds, "38 s" under ten
	// minutes, then whole minutes, "12 min".
	Short
	// Words is a rough span in words: "under a second", "40 s", "12 minutes", "2.5 hours"
	// under two days, then whole hours, "66 hours".
	Words
)

// Seconds writes a span of sec seconds in style.
func Seconds(sec float64, style SpanStyle) string {
	switch style {
	case Elapsed:
		d := time.Duration(sec * float64(time.Second))
		switch {
		case d >= time.Minute:
			d = d.Round(100 * time.Millisecond)
		case d >= time.Second:
			d = d.Round(time.Millisecond)
		}
		return d.String()
	case Decimal:
		return strconv.FormatFloat(Round(sec, 3), 'f', -1, 64) + "s"
	case Short:
		switch {
		case sec < 10:
			return strconv.FormatFloat(sec, 'f', 1, 64) + " s"
		case sec < 600:
			return strconv.FormatFloat(sec, 'f', 0, 64) + " s"
		}
		return strconv.FormatFloat(sec/60, 'f', 0, 64) + " min"
	case Words:
		switch {
		case sec < 1:
			return "under a second"
		case sec < 90:
			return fmt.Sprintf("%.0f s", sec)
		case sec < 90*60:
			return fmt.Sprintf("%.0f minutes", sec/60)
		case sec < 48*3600:
			return fmt.Sprintf("%.1f hours", sec/3600)
		}
		return fmt.Sprintf("%.0f hours", sec/3600)
	}
	return Duration(Time(math.Round(sec * float64(Second))))
}
