package units_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/units"
)

// These tests moved here from scenarios/load_test.go with the parsers they test.

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want units.Time
		ok   bool
	}{
		{in: "250us", want: 250 * units.Microsecond, ok: true},
		{in: "250µs", want: 250 * units.Microsecond, ok: true},
		{in: "1.5ms", want: 1500 * units.Microsecond, ok: true},
		{in: "15m", want: 15 * units.Minute, ok: true},
		{in: "2h", want: 2 * units.Hour, ok: true},
		{in: "30d", want: 720 * units.Hour, ok: true},
		{in: "1d12h", want: 36 * units.Hour, ok: true},
		{in: "1.5d", want: 36 * units.Hour, ok: true},
		{in: "2h30m", want: 150 * units.Minute, ok: true},
		{in: " 1s ", want: units.Second, ok: true},
		{in: "0s", want: 0, ok: true},
		{in: "0", want: 0, ok: true},
		{in: "-1s", want: -units.Second, ok: true}, // callers reject negative values themselves
		{in: "106751d", want: 106751 * 24 * units.Hour, ok: true},
		{in: ""},
		{in: "   "},
		{in: "10"},
		{in: "d"},
		{in: "1dd"},
		{in: "1d.5"},
		{in: "ten seconds"},
		{in: "1w"},
		{in: "1e3s"},
		{in: "106752d"}, // overflows int64 nanoseconds
		{in: "1.5.5d"},
		{in: "2.5.d"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := units.ParseDuration(tc.in)
			switch {
			case tc.ok && err != nil:
				t.Errorf("ParseDuration(%q): %v", tc.in, err)
			case tc.ok && got != tc.want:
				t.Errorf("ParseDuration(%q) = %v, want %v", tc.in, got, tc.want)
			case !tc.ok && err == nil:
				t.Errorf("ParseDuration(%q) = %v, want an error", tc.in, got)
			case !tc.ok && strings.TrimSpace(tc.in) != "" && !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.in)),
				!tc.ok && !strings.Contains(err.Error(), "duration"):
				t.Errorf("ParseDuration(%q): error %q does not name the input", tc.in, err)
			}
		})
	}
}

func TestParseClock(t *testing.T) {
	tests := []struct {
		in   string
		want units.Time
		ok   bool
	}{
		{in: "00:00", want: 0, ok: true},
		{in: "06:00", want: 6 * units.Hour, ok: true},
		{in: "08:15:30", want: 8*units.Hour + 15*units.Minute + 30*units.Second, ok: true},
		{in: "23:59:59", want: 24*units.Hour - units.Second, ok: true},
		{in: "6:05", want: 6*units.Hour + 5*units.Minute, ok: true},
		{in: " 12:00 ", want: 12 * units.Hour, ok: true},
		{in: "24:00"},
		{in: "12:60"},
		{in: "12:00:60"},
		{in: "12"},
		{in: "12:00:00:00"},
		{in: "012:00"},
		{in: "ab:cd"},
		{in: "12:"},
		{in: ":30"},
		{in: ""},
		{in: "-1:00"},
		{in: "+1:00"},
		{in: "-0:00"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := units.ParseClock(tc.in)
			switch {
			case tc.ok && err != nil:
				t.Errorf("ParseClock(%q): %v", tc.in, err)
			case tc.ok && got != tc.want:
				t.Errorf("ParseClock(%q) = %v, want %v", tc.in, got, tc.want)
			case !tc.ok && err == nil:
				t.Errorf("ParseClock(%q) = %v, want an error", tc.in, got)
			case !tc.ok && !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.in)):
				t.Errorf("ParseClock(%q): error %q does not name the input", tc.in, err)
			}
		})
	}
}

func TestParseInstant(t *testing.T) {
	tests := []struct {
		in    string
		start string
		want  units.Time
		ok    bool
	}{
		{"08:15", "06:00", 2*units.Hour + 15*units.Minute, true},
		{"06:00", "06:00", 0, true},
		{"06:00:01", "06:00", units.Second, true},
		{"05:00", "06:00", 23 * units.Hour, true}, // before the start: the next day
		{"00:00", "23:30", 30 * units.Minute, true},
		{"23:59", "00:00", 23*units.Hour + 59*units.Minute, true},
		{"2h", "06:00", 2 * units.Hour, true},
		{"1d12h", "06:00", 36 * units.Hour, true},
		{"0s", "12:00", 0, true},
		{"25:00", "00:00", 0, false},
		{"soon", "00:00", 0, false},
		{"", "00:00", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in+"@"+tc.start, func(t *testing.T) {
			start, err := units.ParseClock(tc.start)
			if err != nil {
				t.Fatal(err)
			}
			got, err := units.ParseInstant(tc.in, start)
			switch {
			case tc.ok && err != nil:
				t.Errorf("ParseInstant(%q, %s): %v", tc.in, tc.start, err)
			case tc.ok && got != tc.want:
				t.Errorf("ParseInstant(%q, %s) = %v, want %v", tc.in, tc.start, got, tc.want)
			case !tc.ok && err == nil:
				t.Errorf("ParseInstant(%q, %s) = %v, want an error", tc.in, tc.start, got)
			}
		})
	}
}

func TestClockTimeOfDay(t *testing.T) {
	tests := []struct {
		start, t units.Time
		want     string
	}{
		{0, 0, "00:00"},
		{6 * units.Hour, 2*units.Hour + 15*units.Minute, "08:15"},
		{6 * units.Hour, 2*units.Hour + 15*units.Minute + 30*units.Second, "08:15:30"},
		{6 * units.Hour, 2*units.Hour + 15*units.Minute + 30*units.Second + 999*units.Millisecond, "08:15:30"},
		{23 * units.Hour, 2 * units.Hour, "01:00"},
		{0, 24 * units.Hour, "00:00"},
		{0, 50*units.Hour + units.Second, "02:00:01"},
		{0, -units.Hour, "23:00"},
		{12 * units.Hour, -36 * units.Hour, "00:00"},
	}
	for _, tc := range tests {
		if got := units.Clock(tc.start, tc.t, units.TimeOfDay); got != tc.want {
			t.Errorf("Clock(%v, %v, TimeOfDay) = %q, want %q", tc.start, tc.t, got, tc.want)
		}
	}
	// Clock (TimeOfDay) and ParseInstant are inverses over a day.
	start := 9*units.Hour + 30*units.Minute
	for _, d := range []units.Time{0, units.Second, 14*units.Hour + 29*units.Minute + 59*units.Second, 23 * units.Hour} {
		back, err := units.ParseInstant(units.Clock(start, d, units.TimeOfDay), start)
		if err != nil || back != d {
			t.Errorf("ParseInstant(Clock(%v)) = %v, %v", d, back, err)
		}
	}
}
