package units_test

import (
	"math"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/units"
)

func TestClockExact(t *testing.T) {
	for _, tc := range []struct {
		start, t units.Time
		want     string
	}{
		{0, 0, "00:00"},
		{8 * units.Hour, 15 * units.Minute, "08:15"},
		{8 * units.Hour, 15*units.Minute + 30*units.Second, "08:15:30"},
		{8 * units.Hour, 15*units.Minute + 30*units.Second + 250*units.Millisecond, "08:15:30.250"},
		{8 * units.Hour, 15*units.Minute + 30*units.Second + units.Nanosecond, "08:15:30.000000001"},
		{0, 8*units.Hour + 120*units.Microsecond, "08:00:00.00012"},
		{0, 24*units.Hour - units.Nanosecond, "23:59:59.999999999"},
		{0, -units.Hour, "d-1 23:00"}, // before midnight of the first day
		{0, -units.Nanosecond, "d-1 23:59:59.999999999"},
		{23 * units.Hour, 2 * units.Hour, "d+1 01:00"}, // no wrap: the day is said
		{0, 48*units.Hour + units.Second, "d+2 00:00:01"},
		{0, math.MaxInt64, "d+106751 23:47:16.854775807"},
	} {
		if got := units.Clock(tc.start, tc.t, units.Exact); got != tc.want {
			t.Errorf("Clock(%d, %d, Exact) = %q, want %q", tc.start, tc.t, got, tc.want)
		}
	}
}

func TestClockTimeOfDayEdges(t *testing.T) {
	for _, tc := range []struct {
		start, t units.Time
		want     string
	}{
		{0, 24*units.Hour - units.Nanosecond, "23:59:59"}, // truncated, never rounded up to 24:00
		{0, 59 * units.Second, "00:00:59"},
		{0, -units.Nanosecond, "23:59:59"},
		{0, math.MaxInt64, "23:47:16"},
		{0, math.MinInt64, "00:12:43"},
	} {
		if got := units.Clock(tc.start, tc.t, units.TimeOfDay); got != tc.want {
			t.Errorf("Clock(%d, %d, TimeOfDay) = %q, want %q", tc.start, tc.t, got, tc.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		in   units.Time
		want string
	}{
		{0, "0s"},
		{units.Nanosecond, "1ns"},
		{250 * units.Millisecond, "250ms"},
		{1500 * units.Millisecond, "1.5s"},
		{30 * units.Second, "30s"},
		{units.Minute, "1m"},
		{units.Hour, "1h"},
		{90 * units.Minute, "1h30m"},
		{units.Hour + units.Second, "1h0m1s"}, // a zero unit inside stays
		{-units.Minute, "-1m"},
		{math.MaxInt64, "2562047h47m16.854775807s"},
	} {
		if got := units.Duration(tc.in); got != tc.want {
			t.Errorf("Duration(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for _, tc := range []struct {
		sec   float64
		style units.SpanStyle
		want  string
	}{
		// Flag: Duration of the seconds rounded to the nanosecond.
		{10800, units.Flag, "3h"},
		{300, units.Flag, "5m"},
		{45, units.Flag, "45s"},
		{1.5, units.Flag, "1.5s"},
		{5400, units.Flag, "1h30m"},
		{0, units.Flag, "0s"},
		{-90, units.Flag, "-1m30s"},
		{0.4e-9, units.Flag, "0s"},
		{0.6e-9, units.Flag, "1ns"},
		{3600 + 0.4e-9, units.Flag, "1h"},
		// Elapsed: a tenth of a second from a minute, a millisecond from a second.
		{3253.621541, units.Elapsed, "54m13.6s"},
		{12.5, units.Elapsed, "12.5s"},
		{1.2346, units.Elapsed, "1.235s"},
		{59.9996, units.Elapsed, "1m0s"}, // rounds up across the minute
		{60, units.Elapsed, "1m0s"},
		{0.25, units.Elapsed, "250ms"},
		{0, units.Elapsed, "0s"},
		{-5, units.Elapsed, "-5s"},
		// Decimal: seconds to the millisecond.
		{1.5, units.Decimal, "1.5s"},
		{0.001, units.Decimal, "0.001s"},
		{0.0004, units.Decimal, "0s"},
		{2.0004, units.Decimal, "2s"},
		{5400, units.Decimal, "5400s"},
		{-1.25, units.Decimal, "-1.25s"},
		{math.NaN(), units.Decimal, "NaNs"},
		// Short: one decimal under ten seconds, whole seconds under ten minutes, then minutes.
		{4.2, units.Short, "4.2 s"},
		{0, units.Short, "0.0 s"},
		{9.96, units.Short, "10.0 s"}, // still under ten: one decimal
		{10, units.Short, "10 s"},
		{38, units.Short, "38 s"},
		{599.6, units.Short, "600 s"},
		{600, units.Short, "10 min"},
		{720, units.Short, "12 min"},
		// Words.
		{0.5, units.Words, "under a second"},
		{-5, units.Words, "under a second"},
		{1, units.Words, "1 s"},
		{40, units.Words, "40 s"},
		{89.4, units.Words, "89 s"},
		{90, units.Words, "2 minutes"}, // 1.5 minutes, to even
		{720, units.Words, "12 minutes"},
		{5400, units.Words, "1.5 hours"},
		{48*3600 - 1, units.Words, "48.0 hours"},
		{48 * 3600, units.Words, "48 hours"},
		{66 * 3600, units.Words, "66 hours"},
		{math.NaN(), units.Words, "NaN hours"},
	} {
		if got := units.Seconds(tc.sec, tc.style); got != tc.want {
			t.Errorf("Seconds(%v, %d) = %q, want %q", tc.sec, tc.style, got, tc.want)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		x      float64
		digits int
		want   string
	}{
		{0.1234, 1, "12.3%"},
		{0.5, 0, "50%"},
		{0, 2, "0.00%"},
		{1, 1, "100.0%"},
		{-0.25, 1, "-25.0%"},
		{1.5, 0, "150%"},
		{0.0005, 1, "0.1%"},  // 0.05 is a little above 0.05 in binary: up
		{0.00049, 1, "0.0%"}, // under the half step: down
		{0.005, 0, "0%"},     // 0.5 exactly: to even
		{0.015, 0, "2%"},     // 1.5 exactly: to even
		{1e20, 0, "10000000000000000000000%"},
		{math.MaxFloat64, 0, "+Inf%"},
		{math.NaN(), 1, "NaN%"},
	} {
		if got := units.Percent(tc.x, tc.digits); got != tc.want {
			t.Errorf("Percent(%v, %d) = %q, want %q", tc.x, tc.digits, got, tc.want)
		}
	}
}

func TestShare(t *testing.T) {
	both := units.KeepZero | units.KeepFull
	for _, tc := range []struct {
		x      float64
		digits int
		keep   units.Edges
		want   string
	}{
		{0.00004, 2, units.KeepZero, "<0.01%"},
		{0.00004, 2, 0, "0.00%"},
		{0.00005, 2, units.KeepZero, "0.01%"},
		{0, 2, units.KeepZero, "0.00%"},
		{-0.00001, 2, units.KeepZero, "-0.00%"}, // not a share above 0
		{0.00049, 1, both, "<0.1%"},
		{0.0005, 1, both, "0.1%"},
		{0.99996, 1, both, ">99.9%"},
		{0.99996, 1, units.KeepZero, "100.0%"},
		{1, 1, both, "100.0%"},
		{0.004, 0, units.KeepZero, "<1%"},
		{0.996, 0, units.KeepFull, ">99%"},
		{0.37, 1, both, "37.0%"},
		{math.NaN(), 2, both, "NaN%"},
	} {
		if got := units.Share(tc.x, tc.digits, tc.keep); got != tc.want {
			t.Errorf("Share(%v, %d, %d) = %q, want %q", tc.x, tc.digits, tc.keep, got, tc.want)
		}
	}
}

func TestShareOf(t *testing.T) {
	for _, tc := range []struct {
		part, whole int64
		digits      int
		want        string
	}{
		{0, 0, 1, "0.0%"},
		{5, 0, 1, "0.0%"},
		{5, -1, 1, "0.0%"},
		{0, 100, 1, "0.0%"},
		{37, 100, 1, "37.0%"},
		{1, 100_000, 1, "<0.1%"},
		{99_999, 100_000, 1, ">99.9%"},
		{100_000, 100_000, 1, "100.0%"},
		{6_544, 93_000_000, 2, "0.01%"},
		{6_544, 93_000_000, 1, "<0.1%"},
		{math.MaxInt64 - 1, math.MaxInt64, 1, "100.0%"}, // the quotient is 1 in float64
	} {
		if got := units.ShareOf(tc.part, tc.whole, tc.digits); got != tc.want {
			t.Errorf("ShareOf(%d, %d, %d) = %q, want %q", tc.part, tc.whole, tc.digits, got, tc.want)
		}
	}
}

func TestPercentShares(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want []string
	}{
		{nil, []string{}},
		{[]float64{0, 0}, []string{"0.00%", "0.00%"}},
		{[]float64{1}, []string{"100.00%"}},
		{[]float64{1, 0}, []string{"100.00%", "0.00%"}},
		{[]float64{1, 1, 1}, []string{"33.34%", "33.33%", "33.33%"}}, // the tie goes to the first
		{[]float64{2, 1}, []string{"66.67%", "33.33%"}},
		{[]float64{1, 2}, []string{"33.33%", "66.67%"}},
		{[]float64{0.2, 0.3, 0.5}, []string{"20.00%", "30.00%", "50.00%"}},
		{[]float64{1e300, 1e300}, []string{"50.00%", "50.00%"}},
		{[]float64{1, 9_999}, []string{"0.01%", "99.99%"}},
		{[]float64{1, 99_999}, []string{"0.00%", "100.00%"}}, // 0.001% is within 0.01 of 0.00%
	} {
		if got := units.PercentShares(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("PercentShares(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {96048, "96,048"}, {1601625, "1,601,625"},
		{-1, "-1"}, {-999, "-999"}, {-1000, "-1,000"}, {-96048, "-96,048"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := units.Count(tc.n); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestApprox(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0"},
		{2.5, "3"}, // halves away from zero
		{999_999.4, "999,999"},
		{999_999.6, "1,000,000"}, // rounds up below the million: still a whole count
		{1e6, "1 million"},
		{2_345_678, "2.35 million"},
		{999_499_999, "999 million"},
		{999_500_000, "1e+03 million"}, // three significant digits, as written since the start
		{1e9, "1 billion"},
		{10e9, "10 billion"},
		{1.234e12, "1.23e+03 billion"},
		{-96_048, "-96,048"},
		{math.Inf(1), "+Inf billion"},
	} {
		if got := units.Approx(tc.x); got != tc.want {
			t.Errorf("Approx(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestRound(t *testing.T) {
	for _, tc := range []struct {
		x      float64
		digits int
		want   float64
	}{
		{0, 3, 0},
		{1.23456, 3, 1.235},
		{0.5, 0, 1},
		{-0.5, 0, -1}, // halves away from zero
		{2.5, 0, 3},
		{2.675, 2, 2.68}, // 267.5 after scaling
		{1.005, 2, 1},    // 100.49999999999999 after scaling: down
		{1.0005, 3, 1.001},
		{0.00004, 4, 0},
		{0.00005, 4, 0.0001},
		{1234.5678, -2, 1200},
		{math.MaxFloat64, 1, math.Inf(1)}, // the scaled value overflows
		{math.Inf(-1), 3, math.Inf(-1)},
	} {
		if got := units.Round(tc.x, tc.digits); got != tc.want {
			t.Errorf("Round(%v, %d) = %v, want %v", tc.x, tc.digits, got, tc.want)
		}
	}
	if got := units.Round(math.NaN(), 3); !math.IsNaN(got) {
		t.Errorf("Round(NaN, 3) = %v, want NaN", got)
	}
}
