package workload

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Categorical draws an index in [0, count) — a categorical field's position in its value
// list — with probability proportional to its weight, or uniformly when there are no
// weights. A draw takes O(1) time and one 64-bit random number, whatever count is: it
// uses an alias table built with Vose's method (M. D. Vose, "A linear algorithm for
// generating random numbers with a given distribution", IEEE Trans. Software Eng.
// 17(9):972-975, 1991; the alias method is A. J. Walker's, ACM TOMS 3(3):253-256, 1977).
type Categorical struct {
	count uint64
	alias []aliasEntry // nil for uniform
}

// aliasEntry is column i of the alias table: i is returned when the fraction drawn is
// below thr/2^64, alias otherwise.
type aliasEntry struct {
	thr   uint64
	alias uint64
}

// NewCategorical returns a generator of indexes in [0, count). weights nil means uniform;
// otherwise len(weights) must be count and the weights must be finite, >= 0 and not all 0
// (an index of weight 0 is never drawn). It panics otherwise.
func NewCategorical(count int, weights []float64) *Categorical {
	if count <= 0 {
		panic("workload: NewCategorical with count <= 0")
	}
	g := &Categorical{count: uint64(count)}
	if weights == nil {
		return g
	}
	g.alias = aliasTable(weights, weightSum(count, weights))
	return g
}

// weightSum is the sum of the count weights; it panics, as NewCategorical documents, when
// there are not count of them, one is negative, NaN or infinite, or they sum to 0 or
// overflow.
func weightSum(count int, weights []float64) float64 {
	if len(weights) != count {
		panic(fmt.Sprintf("workload: NewCategorical with %d weights for %d values", len(weights), count))
	}
	sum := 0.0
	for _, w := range weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			panic("workload: NewCategorical weights must be finite and >= 0")
		}
		sum += w
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		panic("workload: NewCategorical weights sum to 0 or overflow")
	}
	return sum
}

// aliasTable builds the alias table of weights (summing to sum) by Vose's algorithm:
// scale the weights to mean 1, then pair each column under 1 ("small") with one over 1
// ("large") that fills it up.
func aliasTable(weights []float64, sum float64) []aliasEntry {
	count := len(weights)
	p := make([]float64, count)
	small := make([]int, 0, count)
	large := make([]int, 0, count)
	for i, w := range weights {
		p[i] = w / sum * float64(count)
		if p[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	alias := make([]aliasEntry, count)
	for len(small) > 0 && len(large) > 0 {
		l := small[len(small)-1]
		small = small[:len(small)-1]
		h := large[len(large)-1]
		large = large[:len(large)-1]
		alias[l] = aliasEntry{thr: fracToThreshold(p[l]), alias: uint64(h)}
		p[h] = (p[h] + p[l]) - 1 // Vose's order of operations, which limits rounding drift
		if p[h] < 1 {
			small = append(small, h)
		} else {
			large = append(large, h)
		}
	}
	// What is left has probability 1 up to rounding; alias to itself so it always wins.
	for _, i := range large {
		alias[i] = aliasEntry{alias: uint64(i)}
	}
	for _, i := range small {
		alias[i] = aliasEntry{alias: uint64(i)}
	}
	return alias
}

// fracToThreshold converts a probability in [0, 1) to a threshold on a uniform uint64.
func fracToThreshold(f float64) uint64 {
	if f <= 0 {
		return 0
	}
	if f >= 1 {
		return math.MaxUint64
	}
	return uint64(f * (1 << 64)) // f <= 1 - 2^-53, so the product is < 2^64
}

// Next returns an index in [0, count); t is ignored.
func (g *Categorical) Next(r *rand.Rand, _ int64) uint64 {
	if g.alias == nil {
		return r.Uint64N(g.count)
	}
	// One 64-bit variate x gives both the column, floor(x·count/2^64), and the fraction
	// within it, (x·count) mod 2^64 (Lemire, "Fast random integer generation in an
	// interval", ACM TOMACS 29(1), 2019, without the rejection step: the column is biased
	// by at most count/2^64, and the fraction has resolution count/2^64, both negligible).
	col, frac := bits.Mul64(r.Uint64(), g.count)
	e := &g.alias[col]
	if frac < e.thr {
		return col
	}
	return e.alias
}

// Info reports Cardinality count.
func (g *Categorical) Info() Info { return Info{Cardinality: g.count} }
