package units

import (
	"math"
	"strconv"
)

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

// Round rounds x to digits decimals, halves away from zero, after scaling x by 10^digits in
// float64: Round(2.675, 2) is 2.68 (267.5 after scaling), Round(1.005, 2) is 1 (1.005*100
// is 100.49999999999999). A scaled value past the largest float64 is an infinity.
// The JSON outputs round their figures with it (milliseconds to the microsecond with 3,
// utilizations to 0.01 percentage points with 4).
func Round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// Approx writes a count for people, to three significant digits from a million up:
// "96,048", "2.3 million", "10 billion", "1.23e+03 billion". Below a million it is the
// whole count (Count of x rounded, halves away from zero).
func Approx(x float64) string {
	switch {
	case x >= 1e9:
		return strconv.FormatFloat(x/1e9, 'g', 3, 64) + " billion"
	case x >= 1e6:
		return strconv.FormatFloat(x/1e6, 'g', 3, 64) + " million"
	}
	return Count(int64(math.Round(x)))
}
