package workload

import (
	"math"
	"slices"
	"testing"
)

// zipfExact returns the exact probabilities P(k) = (k+1)^-s / Σ_{j=1..n} j^-s.
func zipfExact(n int, s float64) []float64 {
	p := make([]float64, n)
	sum := 0.0
	for k := n - 1; k >= 0; k-- { // small terms first
		p[k] = math.Pow(float64(k+1), -s)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

// zipfBuckets groups ranks [0, n) for a chi-square test: ranks 0..19 one by one, then
// geometrically growing groups (ratio 1.3) up to n-2, then rank n-1 alone, so that both
// the head and the cut-off at n are checked; consecutive buckets are then merged until
// each expects at least 20 draws. It returns each rank's bucket and the bucket count.
func zipfBuckets(p []float64, draws float64) ([]int, int) {
	n := len(p)
	var starts []int
	for k := 0; k < min(20, n); k++ {
		starts = append(starts, k)
	}
	for k := 20; k < n-1; k = max(k+1, int(float64(k)*1.3)) {
		starts = append(starts, k)
	}
	if n-1 >= 20 {
		starts = append(starts, n-1)
	}
	starts = append(starts, n)
	// Merge forward until each bucket expects >= 20; a short last bucket joins the
	// previous one.
	var merged []int
	acc := 0.0
	for i := 0; i+1 < len(starts); i++ {
		if acc == 0 {
			merged = append(merged, starts[i])
		}
		for k := starts[i]; k < starts[i+1]; k++ {
			acc += p[k] * draws
		}
		if acc >= 20 {
			acc = 0
		}
	}
	if acc > 0 && len(merged) > 1 {
		merged = merged[:len(merged)-1]
	}
	bucket := make([]int, n)
	b := 0
	for k := range n {
		for b+1 < len(merged) && k >= merged[b+1] {
			b++
		}
		bucket[k] = b
	}
	return bucket, len(merged)
}

// TestZipfExact compares Zipf draws with the exact law at n = 1000 for several exponents
// (the required 0.5, 0.99 and 1.2, and also 1 exactly, which uses the log-limit forms,
// 3, and a tiny 1e-9, which runs the general path through the Taylor forms).
//
// Chi-square goodness of fit: N = 2e6 draws (seed 1000·s-index + 1) counted in the
// buckets of zipfBuckets (ranks 0..19 one by one, geometric groups over the tail, the
// last rank alone; 37 buckets, 29 for s = 3 after merging), expected N·Σ_{k in bucket} P(k);
// the statistic Σ (obs-exp)²/exp must stay under the chi-square 0.999 quantile for
// buckets-1 degrees of freedom (chi2Upper: 68.1 for 36 df, 57.0 for 28 df). A
// probability error of 1% on rank 0 alone adds ~2e6·P(0)·1e-4 (≥ 14 for these s) to
// the statistic; one of 20% on the last rank adds ≥ 40 for s <= 1.2.
//
// Mean rank: |mean - E[k]| < 4.5·sqrt(Var[k]/N), E[k] = Σ k·P(k), Var[k] = Σ k²·P(k) - E[k]²
// (a correct sampler fails this with probability ~7e-6).
func TestZipfExact(t *testing.T) {
	const n, draws = 1000, 2_000_000
	for si, s := range []float64{0.5, 0.99, 1, 1.2, 3, 1e-9} {
		r := newRand(uint64(1000*si + 1))
		z := NewZipf(n, s, false)
		counts := make([]int, n)
		for range draws {
			k := z.Next(r, 0)
			if k >= n {
				t.Fatalf("s=%v: rank %d out of [0, %d)", s, k, n)
			}
			counts[k]++
		}
		p := zipfExact(n, s)
		bucket, nb := zipfBuckets(p, draws)
		obs := make([]int, nb)
		exp := make([]float64, nb)
		mean, m2 := 0.0, 0.0
		sampleMean := 0.0
		for k := range n {
			obs[bucket[k]] += counts[k]
			exp[bucket[k]] += p[k] * draws
			mean += float64(k) * p[k]
			m2 += float64(k) * float64(k) * p[k]
			sampleMean += float64(k) * float64(counts[k])
		}
		sampleMean /= draws
		chi, crit := chiSquare(obs, exp), chi2Upper(nb-1, z999)
		if chi > crit {
			t.Errorf("s=%v: chi-square %.1f > %.1f (%d df, p=0.001); obs[0]=%d exp[0]=%.0f", s, chi, crit, nb-1, obs[0], exp[0])
		}
		se := math.Sqrt((m2 - mean*mean) / draws)
		if d := math.Abs(sampleMean - mean); d > 4.5*se {
			t.Errorf("s=%v: mean rank %.3f, exact %.3f (|diff| %.3f > 4.5·SE %.3f)", s, sampleMean, mean, d, 4.5*se)
		}
		t.Logf("s=%v: chi-square %.1f (%d df, crit %.1f), mean %.3f exact %.3f se %.3f", s, chi, nb-1, crit, sampleMean, mean, se)
	}
}

// TestZipfHead measures the head of the law precisely at the most common exponent,
// s = 0.99 with n = 1e6: N = 1e7 draws (seed 23); the frequencies of ranks 0, 1, 2 and 3
// must each be within 5·sqrt(P(1-P)/N) of the exact P(k) (relative ±0.6% for rank 0,
// whose P = 0.0650), so that a sampler off by 1% at the top rank fails.
func TestZipfHead(t *testing.T) {
	const n, draws = 1_000_000, 10_000_000
	r := newRand(23)
	z := NewZipf(n, 0.99, false)
	var head [4]int
	for range draws {
		if k := z.Next(r, 0); k < 4 {
			head[k]++
		}
	}
	p := zipfExact(n, 0.99)
	for k, c := range head {
		f := float64(c) / draws
		if tol := 5 * math.Sqrt(p[k]*(1-p[k])/draws); math.Abs(f-p[k]) > tol {
			t.Errorf("P(%d) = %.6f, exact %.6f (tolerance %.6f)", k, f, p[k], tol)
		}
	}
}

// TestZipfUniform checks s = 0 is uniform: n = 100, N = 1e6 draws (seed 7), chi-square
// over all 100 ranks (expected N/100 each) under the 0.999 quantile with 99 df (≈148.2).
func TestZipfUniform(t *testing.T) {
	const n, draws = 100, 1_000_000
	r := newRand(7)
	z := NewZipf(n, 0, false)
	obs := make([]int, n)
	exp := make([]float64, n)
	for i := range exp {
		exp[i] = draws / n
	}
	for range draws {
		obs[z.Next(r, 0)]++
	}
	if chi, crit := chiSquare(obs, exp), chi2Upper(n-1, z999); chi > crit {
		t.Errorf("s=0: chi-square %.1f > %.1f", chi, crit)
	}
}

// TestZipfLargeN draws from n = 1e9 (no tables, so this must be instant): every value is
// in range, and for s = 3 the frequency of rank 0 is 1/Σ_{j<=1e9} j^-3 = 1/ζ(3) (the
// tail beyond 1e9 is < 1e-18) = 0.8319073725807075, within 5·sqrt(p(1-p)/N) for N = 1e6
// (seed 11). For s = 0.99 it checks only the range and that some draws exceed 1e8
// (P(k >= 1e8) ≈ 0.09 there). It also checks that scrambling spreads the top ranks
// over the whole range.
func TestZipfLargeN(t *testing.T) {
	const n, draws = 1_000_000_000, 1_000_000
	r := newRand(11)
	z := NewZipf(n, 3, true)
	top := z.ID(0)
	hits := 0
	for range draws {
		v := z.Next(r, 0)
		if v >= n {
			t.Fatalf("value %d out of range", v)
		}
		if v == top {
			hits++
		}
	}
	p := 1 / 1.2020569031595942 // 1/ζ(3), Apéry's constant
	if f := float64(hits) / draws; math.Abs(f-p) > 5*math.Sqrt(p*(1-p)/draws) {
		t.Errorf("s=3, n=1e9: P(rank 0) = %.5f, want %.5f", f, p)
	}
	// Spread: the ids of the 1000 most popular ranks should look uniform on [0, n):
	// their mean / n within 5·sqrt(1/12/1000) = ±0.046 of 1/2, and the ten deciles of
	// [0, n) each hold between 50 and 150 of them (expected 100, sd 9.5).
	mean := 0.0
	var dec [10]int
	for k := range uint64(1000) {
		f := float64(z.ID(k)) / n
		mean += f / 1000
		dec[int(f*10)]++
	}
	if math.Abs(mean-0.5) > 5*math.Sqrt(1.0/12/1000) || slices.Min(dec[:]) < 50 || slices.Max(dec[:]) > 150 {
		t.Errorf("scrambled ids of the top 1000 ranks are not spread: mean/n %.3f, deciles %v", mean, dec)
	}

	z = NewZipf(n, 0.99, false)
	big := 0
	for range 100_000 {
		v := z.Next(r, 0)
		if v >= n {
			t.Fatalf("value %d out of range", v)
		}
		if v >= 1e8 {
			big++
		}
	}
	if big < 5000 {
		t.Errorf("s=0.99, n=1e9: only %d of 1e5 draws >= 1e8 (expected ≈ 9000)", big)
	}
}

// TestZipfScrambleBijection checks exhaustively that the scrambling map is a bijection of
// [0, n) for small and awkward n (powers of two, one more, odd bit widths), that it is
// deterministic (two generators agree), and that for n = 1000 it is not the identity and
// moves rank 0 away from 0.
func TestZipfScrambleBijection(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 8, 9, 1000, 1024, 1025, 4097, 65536, 100_003} {
		z, z2 := NewZipf(n, 0.99, true), NewZipf(n, 1.5, true)
		seen := make([]bool, n)
		fixed := 0
		for k := range n {
			v := z.ID(k)
			if v >= n {
				t.Fatalf("n=%d: ID(%d) = %d out of range", n, k, v)
			}
			if seen[v] {
				t.Fatalf("n=%d: ID(%d) = %d repeats a value", n, k, v)
			}
			seen[v] = true
			if v2 := z2.ID(k); v2 != v {
				t.Fatalf("n=%d: ID(%d) differs between generators: %d, %d", n, k, v, v2)
			}
			if v == k {
				fixed++
			}
		}
		if n >= 1000 && (fixed > int(n/50) || z.ID(0) < n/100) {
			t.Errorf("n=%d: scramble looks like the identity: %d fixed points, ID(0) = %d", n, fixed, z.ID(0))
		}
	}
}

// TestZipfScrambleFrequencies checks that scrambling keeps the exact law, moved: n = 1000,
// s = 0.99, N = 2e6 draws (seed 5); the count of each id ID(k), k < 20, and of all other
// ids together, is compared with N·P(k) by chi-square (20 df, 0.999 quantile 45.3), and
// the frequency of ID(0) alone with P(0) within 5·sqrt(P(0)(1-P(0))/N).
func TestZipfScrambleFrequencies(t *testing.T) {
	const n, draws, head = 1000, 2_000_000, 20
	r := newRand(5)
	z := NewZipf(n, 0.99, true)
	counts := make([]int, n)
	for range draws {
		counts[z.Next(r, 0)]++
	}
	p := zipfExact(n, 0.99)
	obs := make([]int, head+1)
	exp := make([]float64, head+1)
	for k := range uint64(n) {
		b := min(int(k), head)
		obs[b] += counts[z.ID(k)]
		exp[b] += p[k] * draws
	}
	if chi, crit := chiSquare(obs, exp), chi2Upper(head, z999); chi > crit {
		t.Errorf("scrambled: chi-square %.1f > %.1f", chi, crit)
	}
	f0 := float64(obs[0]) / draws
	if d := math.Abs(f0 - p[0]); d > 5*math.Sqrt(p[0]*(1-p[0])/draws) {
		t.Errorf("scrambled: frequency of ID(0)=%d is %.5f, want P(0) = %.5f", z.ID(0), f0, p[0])
	}
	if counts[0] > 2*int(p[0]*draws/10) {
		t.Errorf("scrambled: id 0 drawn %d times, as if rank 0 were not moved", counts[0])
	}
}

// TestZipfHelpers checks the numerically careful helpers against their definitions on
// both sides of the Taylor threshold and at 0, and that H and H^-1 are inverse for
// s = 1 (log/exp) and s near 1.
func TestZipfHelpers(t *testing.T) {
	for _, x := range []float64{-0.5, -1e-4, -2e-8, -1e-8, -1e-12, 0, 1e-12, 1e-8, 2e-8, 1e-4, 0.5, 3} {
		w1, w2 := 1.0, 1.0
		if x != 0 {
			w1, w2 = math.Log1p(x)/x, math.Expm1(x)/x
		}
		if d := math.Abs(helper1(x) - w1); d > 1e-15 {
			t.Errorf("helper1(%g) = %.17g, want %.17g", x, helper1(x), w1)
		}
		if d := math.Abs(helper2(x) - w2); d > 1e-15 {
			t.Errorf("helper2(%g) = %.17g, want %.17g", x, helper2(x), w2)
		}
	}
	for _, s := range []float64{0, 0.5, 1 - 1e-12, 1, 1 + 1e-12, 2} {
		z := NewZipf(1000, s, false)
		for _, x := range []float64{1, 1.5, 7.25, 999.5} {
			if y := z.hIntegralInverse(z.hIntegral(x)); math.Abs(y-x) > 1e-12*x {
				t.Errorf("s=%v: H^-1(H(%v)) = %v", s, x, y)
			}
		}
	}
	if h := NewZipf(10, 1, false).hIntegral(math.E); math.Abs(h-1) > 1e-15 {
		t.Errorf("s=1: H(e) = %v, want log e = 1", h)
	}
}
