package detect

import (
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Gini returns the Gini coefficient of the non-negative loads xs: the mean absolute
// difference between two loads drawn at random, over twice the mean load,
//
//	G = sum_i sum_j |x_i - x_j| / (2 n^2 mean) = sum_i (2i - n - 1) x_(i) / (n sum x)
//
// with x_(1) <= ... <= x_(n). Equal loads give 0; one load of n taking everything gives
// 1 - 1/n, the largest value for n loads. All-zero loads (and no loads) are perfectly
// even: 0. xs is not modified.
func Gini(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return GiniSorted(s)
}

// GiniSorted is Gini of loads already sorted in increasing order, without the copy and the
// sort (a digest of 100,000 shards sorts a window's loads once for every statistic).
func GiniSorted(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	var sum, weighted float64
	for i, x := range s {
		sum += x
		weighted += float64(2*(i+1)-n-1) * x
	}
	if sum <= 0 {
		return 0
	}
	return weighted / (float64(n) * sum)
}

// Median returns the median of xs, the mean of the two middle values for an even count,
// or 0 for none. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return MedianSorted(s)
}

// MedianSorted is Median of values already sorted in increasing order.
func MedianSorted(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Percentile returns the p-quantile (0 <= p <= 1) of xs by the nearest-rank method: the
// smallest value at or above which a fraction p of the values lie, i.e. the ceil(p·n)-th
// smallest (gonum's stat.Empirical). With 12 loads, p = 0.95 is the largest. 0 for none.
// xs is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return PercentileSorted(s, p)
}

// PercentileSorted is Percentile of values already sorted in increasing order.
func PercentileSorted(s []float64, p float64) float64 {
	if len(s) == 0 {
		return 0
	}
	return stat.Quantile(p, stat.Empirical, s, nil)
}

// Ratio returns a/b, or 0 when b is 0 (an undefined ratio: the caller says so).
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
