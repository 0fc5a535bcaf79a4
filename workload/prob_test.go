package workload

import (
	"math"
	"testing"
)

// TestProb checks each generator's Prob against the exact law it draws from: the Zipf
// probability of rank k is (k+1)^-s / H(n, s), H summed directly here (n = 1000, s = 0.99,
// scrambled and not), and every law sums to 1 over its ids (tolerance 1e-9, far above
// float64 rounding over 1000 terms and far below any modelling error).
func TestProb(t *testing.T) {
	const n = 1000
	h := 0.0
	for k := 1; k <= n; k++ {
		h += math.Pow(float64(k), -0.99)
	}
	for _, scramble := range []bool{false, true} {
		z := NewZipf(n, 0.99, scramble)
		sum := 0.0
		for k := uint64(0); k < n; k++ {
			if scramble && z.perm.invert(z.ID(k)) != k {
				t.Fatalf("invert(ID(%d)) = %d", k, z.perm.invert(z.ID(k)))
			}
			want := math.Pow(float64(k+1), -0.99) / h
			if got := z.Prob(z.ID(k)); math.Abs(got-want) > 1e-9*want {
				t.Fatalf("scramble=%v: Prob(ID(%d)) = %g, want %g", scramble, k, got, want)
			}
			sum += z.Prob(k)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("scramble=%v: Zipf probabilities sum to %g", scramble, sum)
		}
	}
	for name, g := range map[string]interface{ Prob(uint64) float64 }{
		"uniform": NewUniform(n), "hotspot": NewHotspot(n, 0.2, 0.8), "zipf s=0": NewZipf(n, 0, true),
	} {
		sum := 0.0
		for v := uint64(0); v < n+5; v++ {
			sum += g.Prob(v)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s: probabilities sum to %g", name, sum)
		}
	}
	if got, want := NewHotspot(n, 0.2, 0.8).Prob(3), 0.8/200; math.Abs(got-want) > 1e-15 {
		t.Errorf("hotspot: Prob(3) = %g, want %g", got, want)
	}
}
