package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestSumExpIsGamma checks sumExp, the sum of k Exp(1) variates, against the Gamma(k, 1)
// distribution it must follow exactly, on both of its paths (k up to gammaFrom adds k
// draws, above it draws one Marsaglia-Tsang variate). For each k, 100,000 draws from PCG
// seed (7, k):
//   - the Kolmogorov-Smirnov distance to gonum's Gamma(k, 1) CDF is below 1.95/sqrt(n),
//     the critical value at the 0.1% level;
//   - the mean and the variance (both k) are within 4 standard errors: sqrt(k/n) for the
//     mean, sqrt((m4 - k^2)/n) for the variance, m4 = 3k^2 + 6k the fourth central moment.
func TestSumExpIsGamma(t *testing.T) {
	const n = 100_000
	for _, k := range []int32{1, 2, 4, 5, 25, 1000} {
		t.Run(fmt.Sprint("k=", k), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(k)))
			xs := make([]float64, n)
			var sum float64
			for i := range xs {
				xs[i] = sumExp(r, k)
				sum += xs[i]
			}
			mean := sum / n
			var ss float64
			for _, x := range xs {
				ss += (x - mean) * (x - mean)
			}
			variance := ss / (n - 1)
			kf := float64(k)
			if se := math.Sqrt(kf / n); math.Abs(mean-kf) > 4*se {
				t.Errorf("mean %.4f, want %v within %.4f", mean, kf, 4*se)
			}
			if se := math.Sqrt((2*kf*kf + 6*kf) / n); math.Abs(variance-kf) > 4*se {
				t.Errorf("variance %.4f, want %v within %.4f", variance, kf, 4*se)
			}
			slices.Sort(xs)
			g := distuv.Gamma{Alpha: kf, Beta: 1}
			var d float64
			for i, x := range xs {
				f := g.CDF(x)
				d = max(d, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
			}
			if crit := 1.95 / math.Sqrt(n); d > crit {
				t.Errorf("Kolmogorov-Smirnov distance %.5f to Gamma(%d), want below %.5f", d, k, crit)
			}
		})
	}
}

// BenchmarkSumExp is the cost of one subrequest's exponential service draw by the number
// of partitions it reads: flat above gammaFrom.
func BenchmarkSumExp(b *testing.B) {
	for _, k := range []int32{1, 4, 25, 1000} {
		b.Run(fmt.Sprint("partitions=", k), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			var s float64
			for b.Loop() {
				s += sumExp(r, k)
			}
			if s < 0 {
				b.Fatal(s)
			}
		})
	}
}
