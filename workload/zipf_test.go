package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
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
// (the required 0.5, 0.99 and 1.2, and also 1 exactly, which uses the limit form of the
// block integral, 3, a tiny 1e-9, nearly uniform, and 10, where rank 0 has 99.9% of the
// mass and the acceptance test within blocks rejects often). At n = 1000 ranks 1..127
// are single-rank blocks and the others blocks of 2, 4 and 8 ranks (see Zipf).
//
// Chi-square goodness of fit: N = 2e6 draws (seed 1000·s-index + 1) counted in the
// buckets of zipfBuckets (ranks 0..19 one by one, geometric groups over the tail, the
// last rank alone; 37 buckets, 29 for s = 3 and 3 for s = 10 after merging), expected
// N·Σ_{k in bucket} P(k);
// the statistic Σ (obs-exp)²/exp must stay under the chi-square 0.999 quantile for
// buckets-1 degrees of freedom (chi2Upper: 68.1 for 36 df, 57.0 for 28 df). A
// probability error of 1% on rank 0 alone adds ~2e6·P(0)·1e-4 (≥ 14 for these s) to
// the statistic; one of 20% on the last rank adds ≥ 40 for s <= 1.2.
//
// Mean rank: |mean - E[k]| < 4.5·sqrt(Var[k]/N), E[k] = Σ k·P(k), Var[k] = Σ k²·P(k) - E[k]²
// (a correct sampler fails this with probability ~7e-6).
func TestZipfExact(t *testing.T) {
	const n, draws = 1000, 2_000_000
	for si, s := range []float64{0.5, 0.99, 1, 1.2, 3, 1e-9, 10} {
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

// TestZipfLargeN draws from n = 1e9 (1591 blocks, so the tables are small and built in well
// under a millisecond): every value is
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

// TestZipfHelpers checks helper2 against its definition on both sides of the Taylor
// threshold and at 0.
func TestZipfHelpers(t *testing.T) {
	for _, x := range []float64{-0.5, -1e-4, -2e-8, -1e-8, -1e-12, 0, 1e-12, 1e-8, 2e-8, 1e-4, 0.5, 3} {
		w2 := 1.0
		if x != 0 {
			w2 = math.Expm1(x) / x
		}
		if d := math.Abs(helper2(x) - w2); d > 1e-15 {
			t.Errorf("helper2(%g) = %.17g, want %.17g", x, helper2(x), w2)
		}
	}
}

// zipfBruteSum returns Σ_{r=a}^{a+count-1} r^-s by direct summation, small terms first,
// with Neumaier's compensation, so its error is that of math.Pow (about an ulp per term).
func zipfBruteSum(a, count uint64, s float64) float64 {
	sum, comp := 0.0, 0.0
	for r := a + count - 1; r >= a; r-- {
		x := math.Pow(float64(r), -s)
		t := sum + x
		if math.Abs(sum) >= math.Abs(x) {
			comp += (sum - t) + x
		} else {
			comp += (x - t) + sum
		}
		sum = t
	}
	return sum + comp
}

// zipfTableMass decodes z's alias table into the number of 2^-128 units each block gets:
// column i gives thr units to i and 2^(128-idxBits) - thr to its alias. It checks that
// every threshold is below the column capacity and that the units add up to 2^128.
func zipfTableMass(t *testing.T, z *Zipf) []u128 {
	t.Helper()
	c := u128{hi: 1 << (64 - z.idxBits)}
	mass := make([]u128, len(z.tab))
	var total u128
	for i, col := range z.tab {
		thr, alias := u128{col >> z.idxBits, z.tabLo[i]}, col&(1<<z.idxBits-1)
		if !thr.less(c) {
			t.Fatalf("column %d: threshold %v >= capacity %v", i, thr, c)
		}
		mass[i] = mass[i].add(thr)
		mass[alias] = mass[alias].add(c.sub(thr))
		total = total.add(c)
	}
	if total != (u128{}) { // 2^128 wraps to 0
		t.Fatalf("alias table holds %v units mod 2^128, want 2^128", total)
	}
	return mass
}

// float returns x as a float64.
func (x u128) float() float64 { return float64(x.hi)*0x1p64 + float64(x.lo) }

// zipfTableProb returns the probability the table gives each block: its units over those
// of all blocks but the "draw again" column 0.
func zipfTableProb(t *testing.T, z *Zipf) []float64 {
	mass := zipfTableMass(t, z)
	if mass[0].hi >= 1<<25 {
		t.Errorf("%v units of 2^-128 to draw again, want < 2^89", mass[0])
	}
	norm := 0x1p128 - mass[0].float()
	p := make([]float64, len(mass))
	for i := 1; i < len(mass); i++ {
		p[i] = mass[i].float() / norm
	}
	return p
}

// TestZipfBlockLayout checks the block layout of Zipf: blocks tile ranks 1..2^64-1 without
// gap or overlap, zipfBlockOf inverts zipfBlockBase, a block of 2^e ranks starting at a has
// (a + 2^e - 1)/a < 1 + 1/64, there are 3775 blocks up to 2^64-1 (so the table has at most
// 4096 columns), and the first multi-rank blocks of 8 ranks start at 512, where
// zipfBlockSum switches to Euler–Maclaurin.
func TestZipfBlockLayout(t *testing.T) {
	next := uint64(1)
	for b := uint64(1); ; b++ {
		a, e := zipfBlockBase(b)
		if a != next {
			t.Fatalf("block %d starts at %d, want %d", b, a, next)
		}
		width := uint64(1) << e
		end := a + (width - 1) // last rank
		for _, r := range []uint64{a, a + width/2, end} {
			if got := zipfBlockOf(r); got != b {
				t.Fatalf("zipfBlockOf(%d) = %d, want %d", r, got, b)
			}
		}
		if b >= zipfSingles && (end-a)*64 >= a {
			t.Fatalf("block %d: ranks %d..%d span a ratio >= 1 + 1/64", b, a, end)
		}
		if width == 8 && a < 512 || width < 8 && end >= 512 {
			t.Fatalf("block %d: %d ranks from %d", b, width, a)
		}
		if end == math.MaxUint64 {
			if b != 3775 {
				t.Errorf("%d blocks up to 2^64-1, want 3775", b)
			}
			break
		}
		next = end + 1
	}
	for _, c := range []struct{ n, blocks uint64 }{{1000, 317}, {10_000_000, 1164}, {1_000_000_000, 1591}} {
		if b := zipfBlockOf(c.n); b != c.blocks {
			t.Errorf("n=%d: %d blocks, want %d", c.n, b, c.blocks)
		}
	}
}

// TestZipfBlockSums checks the block weights: zipfBlockSum against zipfBruteSum for blocks
// of 8 to 2^17 ranks starting at 512 to 2^40 and exponents 1e-9 to 100 (relative
// difference < 1e-14: the Euler–Maclaurin sum is accurate to a few 1e-16, the direct sum
// to about as much), Euler–Maclaurin's own truncation bound (< 2^-60 of the sum) for every
// multi-rank block up to 2^64-1 at exponents up to 120, and its additivity on huge blocks
// (S[a, a+2w) = S[a, a+w) + S[a+w, a+2w) within 1e-14), where no direct sum is possible.
func TestZipfBlockSums(t *testing.T) {
	exps := []float64{1e-9, 0.01, 0.5, 0.99, 1, 1 + 1e-9, 1.2, 2, 3, 10, 30, 100}
	for _, s := range exps {
		for _, a := range []uint64{512, 520, 1000, 4096, 1 << 20, 1<<40 + 12345} {
			for _, count := range []uint64{8, 9, 64, 1000, 1 << 17} {
				if count > a/64 && a >= 4096 { // keep to block-like shapes
					continue
				}
				got, want := zipfBlockSum(a, count, s), zipfBruteSum(a, count, s)
				if want == 0 {
					continue // underflow (s = 100 far out)
				}
				if d := math.Abs(got-want) / want; d > 1e-14 {
					t.Errorf("s=%v: sum over [%d, %d) = %.17g, direct %.17g (rel diff %.2g)", s, a, a+count, got, want, d)
				}
			}
		}
	}
	for _, s := range append(exps, 119) {
		for b := uint64(zipfSingles); b <= 3775; b++ {
			a, count := zipfBlockRange(b, math.MaxUint64)
			if count < 8 {
				continue
			}
			sum, bound := zipfEulerMaclaurin(a, count, s)
			if !(sum >= 0) || bound > 0x1p-60*sum {
				t.Fatalf("s=%v, block %d (%d ranks from %d): sum %g, truncation bound %g", s, b, count, a, sum, bound)
			}
		}
		for _, a := range []uint64{1 << 20, 1 << 40, 1 << 56} {
			w := a / 128
			whole := zipfBlockSum(a, 2*w, s)
			halves := zipfBlockSum(a, w, s) + zipfBlockSum(a+w, w, s)
			if whole != 0 && math.Abs(whole-halves)/whole > 1e-14 {
				t.Errorf("s=%v: sum over [%d, +%d) = %.17g, halves %.17g", s, a, 2*w, whole, halves)
			}
		}
	}
}

// TestZipfTable checks the probabilities the alias table gives each block, exactly decoded
// from its integer columns, against brute-force sums: for n up to 1e6 (including n just
// around the single-rank limit 128 and n that cut the last block) and exponents 1e-9 to
// 10, every block's probability q_b/Σq is within 1e-14 (relative) + 2^-127 (the
// granularity of the table's units) of Σ_{r in b} r^-s / Σ_{r<=n} r^-s, and so is the
// split between the head (ranks 1..127, drawn straight from the table) and the tail (the
// multi-rank blocks), + 2^-115 for up to 4096 blocks. The "draw again"
// column holds fewer than 2^89 units of 2^-128 (a probability < 2e-12).
func TestZipfTable(t *testing.T) {
	for _, n := range []uint64{2, 3, 10, 127, 128, 129, 130, 1000, 4097, 100_003, 1_000_000} {
		for _, s := range []float64{1e-9, 0.5, 0.99, 1, 1.2, 3, 10} {
			z := NewZipf(n, s, false)
			prob := zipfTableProb(t, z)
			total := zipfBruteSum(1, n, s)
			last := zipfBlockOf(n)
			var head, tail, headExact, tailExact float64
			for b := uint64(1); b < uint64(len(prob)); b++ {
				p := prob[b]
				exact := 0.0
				if b <= last {
					a, count := zipfBlockRange(b, n)
					exact = zipfBruteSum(a, count, s) / total
				}
				if d := math.Abs(p - exact); d > 1e-14*exact+0x1p-127 {
					t.Fatalf("n=%d s=%v: block %d has probability %.17g, exact %.17g", n, s, b, p, exact)
				}
				if b < zipfSingles {
					head, headExact = head+p, headExact+exact
				} else {
					tail, tailExact = tail+p, tailExact+exact
				}
			}
			if math.Abs(head-headExact) > 1e-14*headExact+0x1p-115 || math.Abs(tail-tailExact) > 1e-14*tailExact+0x1p-115 {
				t.Errorf("n=%d s=%v: head/tail %.17g/%.17g, exact %.17g/%.17g", n, s, head, tail, headExact, tailExact)
			}
		}
	}
}

// TestZipfTableLargeN checks the table where no brute-force sum is possible, through
// closed forms of Σ_{r<=n} r^-s (Euler–Maclaurin at n, with ζ): the probability of rank 1,
// 1/Σ, for n = 1e9 and 2^64-1 at s = 0.5 (2√n + ζ(1/2) + n^-1/2/2), 1 (log n + γ +
// 1/(2n)), 2 (π²/6 - 1/n + 1/(2n²)) and 3 (ζ(3)), within 1e-13 (relative): this tests
// the weights of blocks of up to 2^57 ranks. It also checks an exponent so large that
// only rank 1 has a representable weight, and the table sizes.
func TestZipfTableLargeN(t *testing.T) {
	const zetaHalf, gamma, zeta3 = -1.4603545088095868, 0.5772156649015329, 1.2020569031595942
	for _, n := range []uint64{1_000_000_000, math.MaxUint64} {
		nf := float64(n)
		sums := map[float64]float64{
			0.5: 2*math.Sqrt(nf) + zetaHalf + 0.5/math.Sqrt(nf),
			1:   math.Log(nf) + gamma + 0.5/nf,
			2:   math.Pi*math.Pi/6 - 1/nf + 0.5/nf/nf,
			3:   zeta3,
		}
		for s, sum := range sums {
			p := zipfTableProb(t, NewZipf(n, s, false))[1]
			if d := math.Abs(p*sum - 1); d > 1e-13 {
				t.Errorf("n=%d s=%v: P(rank 1) = %.17g, want 1/%.17g (rel diff %.2g)", n, s, p, sum, d)
			}
		}
	}
	z := NewZipf(1_000_000_000, 1e6, false)
	if mass := zipfTableMass(t, z); mass[1] != (u128{}).sub(mass[0]) {
		t.Errorf("s=1e6: rank 1 gets %v units, the draw-again column %v", mass[1], mass[0])
	}
	r := newRand(3)
	for range 1000 {
		if k := z.Next(r, 0); k != 0 {
			t.Fatalf("s=1e6: drew rank %d", k)
		}
	}
	for _, c := range []struct{ n, size uint64 }{{2, 4}, {1000, 512}, {10_000_000, 2048}, {1<<37 - 1, 2048}, {1 << 37, 4096}, {math.MaxUint64, 4096}} {
		if z := NewZipf(c.n, 1, false); uint64(len(z.tab)) != c.size {
			t.Errorf("n=%d: %d columns, want %d", c.n, len(z.tab), c.size)
		}
	}
}

// TestZipfInBlock checks the draw within a block (uniform rank, then the acceptance test)
// by forcing the table to always pick one block: for blocks of 2 ranks, 64 ranks, 8192
// ranks (where part of the uniform of the test is drawn lazily), the cut last block
// (n = 2^20 + 5: 6 ranks), and a block of 2^33 ranks (n ≈ 2^40), at s = 0.5, 1, 3 and 20
// (where the acceptance probability falls to 0.73, so the bounds and the exact test are
// all used). N = 4e5 draws per case (seed 100 + case) fall into G = min(width, 32) groups
// of consecutive ranks with expected N·(group sum)/(block sum); the chi-square statistic
// must stay under the 0.9995 quantile for G-1 df (there are 20 cases; the chance that a
// correct sampler fails any is about 1%). A sampler that skipped the test (uniform within
// the block) gets statistics over 1000 at s = 20 and over 70 at s = 3; one whose
// immediate-acceptance bound used 1/(2m) for 1/m, 590 and more at s = 20.
func TestZipfInBlock(t *testing.T) {
	const draws = 400_000
	seed := uint64(100)
	for _, c := range []struct{ n, rank uint64 }{
		{1<<20 + 5, 200}, {1<<20 + 5, 5000}, {1<<20 + 5, 600_000}, {1<<20 + 5, 1<<20 + 5}, {1<<40 + 99, 1<<39 + 7},
	} {
		for _, s := range []float64{0.5, 1, 3, 20} {
			seed++
			z := NewZipf(c.n, s, false)
			b := zipfBlockOf(c.rank)
			for i := range z.tab {
				z.tab[i], z.tabLo[i] = b, 0 // threshold 0, alias b: always block b
			}
			a, count := zipfBlockRange(b, c.n)
			g := min(count, 32)
			per := count / g // ranks per group (count is a power of two or < 32)
			obs := make([]int, g)
			r := newRand(seed)
			for range draws {
				k := z.Next(r, 0) + 1
				if k < a || k >= a+count {
					t.Fatalf("n=%d s=%v block %d: drew rank %d outside [%d, %d)", c.n, s, b, k, a, a+count)
				}
				obs[(k-a)/per]++
			}
			exp := make([]float64, g)
			total := zipfBlockSum(a, count, s)
			for i := range exp {
				exp[i] = draws * zipfBlockSum(a+uint64(i)*per, per, s) / total
			}
			df := int(g) - 1
			if chi, crit := chiSquare(obs, exp), chi2Upper(max(df, 1), z9995); chi > crit {
				t.Errorf("n=%d s=%v block %d (%d ranks from %d): chi-square %.1f > %.1f (%d df)", c.n, s, b, count, a, chi, crit, df)
			}
		}
	}
}

// TestZipfExactLarger is TestZipfExact at n = 100_003, which has blocks of up to 1024
// ranks and cuts its last one (676 ranks), at s = 0.5, 0.99 and 1.2: N = 2e6 draws
// (seed 200 + index), the buckets of zipfBuckets, chi-square under the 0.999 quantile,
// and the mean rank within 4.5 standard errors.
func TestZipfExactLarger(t *testing.T) {
	const n, draws = 100_003, 2_000_000
	for si, s := range []float64{0.5, 0.99, 1.2} {
		r := newRand(uint64(200 + si))
		z := NewZipf(n, s, false)
		counts := make([]int, n)
		for range draws {
			counts[z.Next(r, 0)]++
		}
		p := zipfExact(n, s)
		bucket, nb := zipfBuckets(p, draws)
		obs := make([]int, nb)
		exp := make([]float64, nb)
		mean, m2, sampleMean := 0.0, 0.0, 0.0
		for k := range n {
			obs[bucket[k]] += counts[k]
			exp[bucket[k]] += p[k] * draws
			mean += float64(k) * p[k]
			m2 += float64(k) * float64(k) * p[k]
			sampleMean += float64(k) * float64(counts[k]) / draws
		}
		if chi, crit := chiSquare(obs, exp), chi2Upper(nb-1, z999); chi > crit {
			t.Errorf("s=%v: chi-square %.1f > %.1f (%d df)", s, chi, crit, nb-1)
		}
		se := math.Sqrt((m2 - mean*mean) / draws)
		if d := math.Abs(sampleMean - mean); d > 4.5*se {
			t.Errorf("s=%v: mean rank %.1f, exact %.1f (|diff| > 4.5·SE %.1f)", s, sampleMean, mean, 4.5*se)
		}
	}
}

// TestZipfSmallN draws from n = 1..6 at s = 1e-9 to 10 (N = 2e5, seed 300 + case): values
// in range, and a chi-square over the ranks (merged by zipfBuckets) under the 0.999
// quantile; the Wilson–Hilferty quantile is rough for so few df, but conservative enough
// here (for 1 df it gives 11.4 against the exact 10.8).
func TestZipfSmallN(t *testing.T) {
	const draws = 200_000
	seed := uint64(300)
	for n := 1; n <= 6; n++ {
		for _, s := range []float64{1e-9, 0.5, 1, 3, 10} {
			seed++
			r := newRand(seed)
			z := NewZipf(uint64(n), s, true)
			counts := make([]int, n)
			for range draws {
				v := z.Next(r, 0)
				if v >= uint64(n) {
					t.Fatalf("n=%d s=%v: value %d", n, s, v)
				}
				counts[v]++
			}
			p := zipfExact(n, s)
			bucket, nb := zipfBuckets(p, draws)
			if nb < 2 {
				continue
			}
			obs := make([]int, nb)
			exp := make([]float64, nb)
			for k := range n {
				obs[bucket[k]] += counts[z.ID(uint64(k))]
				exp[bucket[k]] += p[k] * draws
			}
			if chi, crit := chiSquare(obs, exp), chi2Upper(nb-1, z999); chi > crit {
				t.Errorf("n=%d s=%v: chi-square %.1f > %.1f (%d df)", n, s, chi, crit, nb-1)
			}
		}
	}
}

// TestZipfHugeN draws from the largest n, where blocks hold up to 2^57 ranks and most of
// the uniform of the acceptance test comes from a second number: at s = 0.5, the share of
// ranks >= 2^63 is (√n - √2^63 + ...)/(√n + ζ(1/2) + ...) = 1 - 1/√2 within 1e-9 for
// n = 2^64-1, and (√n - √2^63)/√n for n = 2^63 + 2^62 + 12345 (whose last block is cut);
// N = 2e5 draws (seed 400 + case) must give it within 5·sqrt(p(1-p)/N).
func TestZipfHugeN(t *testing.T) {
	const draws = 200_000
	for i, n := range []uint64{math.MaxUint64, 1<<63 + 1<<62 + 12345} {
		r := newRand(uint64(400 + i))
		z := NewZipf(n, 0.5, false)
		big := 0
		for range draws {
			v := z.Next(r, 0)
			if v >= n {
				t.Fatalf("n=%d: value %d out of range", n, v)
			}
			if v >= 1<<63 {
				big++
			}
		}
		p := 1 - math.Sqrt(0x1p63/float64(n))
		if f := float64(big) / draws; math.Abs(f-p) > 5*math.Sqrt(p*(1-p)/draws) {
			t.Errorf("n=%d: P(rank >= 2^63) = %.4f, want %.4f", n, f, p)
		}
	}
}

// TestZipfAllocs checks that Next does not allocate.
func TestZipfAllocs(t *testing.T) {
	r := newRand(1)
	for _, z := range []*Zipf{NewZipf(10_000_000, 0.99, true), NewZipf(1<<20+5, 20, false), NewZipf(100, 0, true)} {
		if a := testing.AllocsPerRun(1000, func() { sinkU += z.Next(r, 0) }); a != 0 {
			t.Errorf("Next allocates %v times per call", a)
		}
	}
}

// BenchmarkZipfEngineKeys is the key generator of the engine benchmark
// (sim.BenchmarkPointRequests, keys=zipf): n = 1e7, s = 0.99, scrambled.
func BenchmarkZipfEngineKeys(b *testing.B) {
	r := newRand(1)
	z := NewZipf(10_000_000, 0.99, true)
	b.ReportAllocs()
	for b.Loop() {
		sinkU += z.Next(r, 0)
	}
}

// BenchmarkNewZipf measures building the tables.
func BenchmarkNewZipf(b *testing.B) {
	for _, n := range []uint64{1000, 10_000_000, 1_000_000_000, math.MaxUint64} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkU += NewZipf(n, 0.99, true).n
			}
		})
	}
}

// TestZipfHotTable checks that the table of the most popular ranks' ids changes nothing:
// 200,000 draws (seed 3) from a scrambled Zipf with the table and from the same Zipf
// without it must be the same ids, for n below, at and above the table's size; and every
// filled entry must be its rank's id.
func TestZipfHotTable(t *testing.T) {
	for _, n := range []uint64{1000, zipfHot, 10_000_000, 1 << 40} {
		with := NewZipf(n, 0.99, true)
		without := *with
		without.hot = nil
		if n <= 1<<32 && len(with.hot) != int(min(n, zipfHot)) {
			t.Fatalf("n=%d: table of %d ids", n, len(with.hot))
		}
		for k := range with.hot[:min(len(with.hot), 100)] {
			if with.hot[k] != 0 {
				t.Fatalf("n=%d: rank %d filled before any draw", n, k)
			}
		}
		r1, r2 := rand.New(rand.NewPCG(3, 3)), rand.New(rand.NewPCG(3, 3))
		for i := range 200_000 {
			if a, b := with.Next(r1, 0), without.Next(r2, 0); a != b {
				t.Fatalf("n=%d draw %d: %d with the table, %d without", n, i, a, b)
			}
		}
		filled := 0
		for k, v := range with.hot {
			if v != 0 {
				filled++
				if id := with.perm.permute(uint64(k)); uint64(v) != id+1 {
					t.Fatalf("n=%d: hot[%d] = %d, id %d", n, k, v, id)
				}
			}
		}
		if len(with.hot) > 0 && filled == 0 {
			t.Fatalf("n=%d: 200,000 draws filled no entry", n)
		}
	}
}
