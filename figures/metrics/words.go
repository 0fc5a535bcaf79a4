package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/units"
)

// The words of figures, as every reader writes them: report's tables and sentences and
// diagnose's findings say a figure the same way.

// Ms writes milliseconds with 3 significant digits or more.
func Ms(x float64) string {
	switch {
	case x < 10:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case x < 1000:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// Plural writes a count and its noun, singular for one: "1 request", "8,195 requests".
func Plural(n int64, noun string) string {
	if n == 1 || n == -1 {
		return units.Count(n) + " " + noun
	}
	return units.Count(n) + " " + noun + "s"
}

// About writes a distinct count for people: exact while under the sketch's
// detect.DistinctK (it counts exactly up to there), else an estimate rounded to three
// significant digits ("about 1,280,000") and never above the count it was estimated from,
// most (a distinct count cannot exceed the samples it counts).
func About(n, most int64) string {
	if most > 0 && n > most {
		n = most
	}
	if n < detect.DistinctK {
		return units.Count(n)
	}
	p := int64(1)
	for x := n; x >= 1000; x /= 10 {
		p *= 10
	}
	return "about " + units.Count((n+p/2)/p*p)
}

// Cores says "1 core", "4 cores", "2.5 cores".
func Cores(c float64) string {
	switch {
	case c == 1:
		return "1 core"
	case c == math.Trunc(c):
		return fmt.Sprintf("%.0f cores", c)
	}
	return fmt.Sprintf("%.1f cores", c)
}

// JoinAnd lists items: "a", "a and b", "a, b and c".
func JoinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Util rounds a utilization to 0.01 percentage points, as every output writes one.
func Util(x float64) float64 { return units.Round(x, 4) }

// Share returns n/of rounded to 0.01 percentage points, 0 when of is 0.
func Share(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return units.Round(float64(n)/float64(of), 4)
}

// Noun is noun, or its plural for a count other than one.
func Noun(n int64, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
