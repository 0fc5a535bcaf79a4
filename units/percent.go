package units

import (
	"fmt"
	"math"
	"strconv"
)

// Percent writes the fraction x as a percentage with digits decimals: Percent(0.1234, 1)
// is "12.3%", Percent(0.5, 0) "50%". It rounds as strconv does (to nearest, ties to
// even on the binary value); NaN is "NaN%".
func Percent(x float64, digits int) string {
	return strconv.FormatFloat(100*x, 'f', digits, 64) + "%"
}

// Edges says which ends of 0..100% Share keeps a share from rounding onto.
type Edges uint8

const (
	// KeepZero writes a share above 0 that rounds to zero as under the smallest step:
	// "<0.01%" with two decimals (6,544 failures in 93 million requests are not none).
	KeepZero Edges = 1 << iota
	// KeepFull writes a share below 1 that rounds to 100% as over the largest step below
	// it: ">99.9%" with one decimal (some requests did not fail).
	KeepFull
)

// Share is Percent, but never writes a share strictly inside (0, 1) as exactly 0% or 100%
// at the ends that keep names: Share(0.00004, 2, KeepZero) is "<0.01%",
// Share(0.99996, 1, KeepZero|KeepFull) ">99.9%". A share of 0 or 1 (or outside) is
// Percent's.
func Share(x float64, digits int, keep Edges) string {
	s := Percent(x, digits)
	step := math.Pow(10, -float64(digits))
	switch {
	case keep&KeepZero != 0 && x > 0 && s == Percent(0, digits):
		return "<" + strconv.FormatFloat(step, 'f', digits, 64) + "%"
	case keep&KeepFull != 0 && x < 1 && s == Percent(1, digits):
		return ">" + strconv.FormatFloat(100-step, 'f', digits, 64) + "%"
	}
	return s
}

// ShareOf writes part as a share of whole with digits decimals, keeping both ends (Share):
// some is never none and fewer than all never all. A whole of 0 or less is 0%.
func ShareOf(part, whole int64, digits int) string {
	if whole <= 0 {
		return Percent(0, digits)
	}
	return Share(float64(part)/float64(whole), digits, KeepZero|KeepFull)
}

// PercentShares writes the shares of a whole (counts, or fractions) as percentages with
// two decimals that add up to exactly 100.00%: each is rounded down to a hundredth of a
// percent and the hundredths still missing go to the largest remainders (the first on a
// tie), so each is within 0.01 of its share. An empty whole is 0.00% each.
func PercentShares(xs []float64) []string {
	var total float64
	for _, x := range xs {
		total += x
	}
	hundredths := make([]int64, len(xs))
	rem := make([]float64, len(xs))
	var sum int64
	for i, x := range xs {
		if total <= 0 {
			break
		}
		u := 10000 * x / total
		hundredths[i] = int64(math.Floor(u + 1e-9))
		rem[i] = u - float64(hundredths[i])
		sum += hundredths[i]
	}
	if total > 0 {
		for left := 10000 - sum; left > 0; left-- {
			best := -1
			for i := range rem {
				if rem[i] > 0 && (best < 0 || rem[i] > rem[best]) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			hundredths[best]++
			rem[best] = 0
		}
	}
	out := make([]string, len(xs))
	for i, u := range hundredths {
		out[i] = fmt.Sprintf("%d.%02d%%", u/100, u%100)
	}
	return out
}
