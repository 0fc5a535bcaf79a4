package workload

import (
	"math"
	"math/rand/v2"
)

// Statistical helpers shared by the tests. Every statistical test uses a fixed seed, so
// it is deterministic; its threshold is chosen so that a correct implementation would
// fail with a stated small probability over seeds (and passes with the seed used), while
// the sample sizes make the tests sensitive to the smallest plausible bug (an off-by-one
// rank, a wrong exponent, a lost nanosecond per arrival...).

// newRand returns a PCG source with the given seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9E3779B97F4A7C15)) }

// chi2Upper returns the upper quantile of the chi-square distribution with df degrees of
// freedom at standard normal deviate z, by the Wilson–Hilferty approximation
// (E. B. Wilson & M. M. Hilferty, PNAS 17:684-688, 1931):
//
//	χ²(df) ≈ df·(1 - 2/(9df) + z·sqrt(2/(9df)))³,
//
// accurate to about 1% for df >= 10 in the tails used here. z = 3.0902 is the 0.999
// quantile (for df = 20 this gives 45.4; the exact value is 45.31); z = -3.29 the 0.0005
// one.
func chi2Upper(df int, z float64) float64 {
	d := float64(df)
	c := 1 - 2/(9*d) + z*math.Sqrt(2/(9*d))
	return d * c * c * c
}

const (
	z999  = 3.0902 // standard normal 0.999 quantile
	z9995 = 3.2905 // standard normal 0.9995 quantile
)

// chiSquare returns Pearson's statistic Σ (obs - exp)² / exp.
func chiSquare(obs []int, exp []float64) float64 {
	x := 0.0
	for i := range obs {
		d := float64(obs[i]) - exp[i]
		x += d * d / exp[i]
	}
	return x
}
