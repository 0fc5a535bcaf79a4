package workload

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/shardsim/shardsim/internal/splitmix"
)

// Zipf draws ids whose popularity follows Zipf's law: rank k in [0, n) is drawn with
// probability
//
//	P(k) = (k+1)^-s / sum_{j=1..n} j^-s
//
// exactly (up to floating-point rounding, see below), for every exponent s >= 0: s = 0 is
// the uniform distribution, and there is no restriction s > 1 as in math/rand's Zipf. A
// draw costs O(1) expected time: one or two 64-bit random numbers, a table look-up and a
// few integer operations, with a transcendental function in a tiny fraction of the draws
// only. The generator holds an alias table of one 16-byte column per block (see below),
// padded to a power of two: 8 KiB for n = 1000, 32 KiB for any n < 2^37, 64 KiB at most
// (draws read the 8-byte high half of a column, and the low half only in rare cases).
//
// Without scrambling the value is the rank itself: 0 is the most popular id, then 1...
// With scrambling the value is ID(rank), where ID is a fixed keyed bijection of [0, n),
// so the popular ids are spread over the whole id space (as YCSB's "scrambled zipfian"
// does, but with a bijection, so the probabilities stay exact: id ID(k) has probability
// P(k)). A scrambled Zipf keeps the ids of its most popular ranks once computed (up to
// 256 KiB, see zipfHot), so, like every Generator, it must not be used from several
// goroutines at once.
//
// # Method
//
// Ranks are counted from 1 here (rank r is the value r-1) and cut into blocks with a
// floating-point-like layout of zipfMant = 6 mantissa bits: ranks 1..127 are blocks of a
// single rank (block b is rank b), and each octave [2^j, 2^(j+1)), j >= 7, is cut into 64
// blocks of 2^(j-6) ranks, block b >= 128 holding ranks [m·2^e, (m+1)·2^e) with
// e = b/64 - 1 and m = b - 64e in [64, 128). The last block is cut at n. So there are at
// most 3775 blocks (for n = 2^64-1), and within a block the largest rank is less than
// 1 + 1/64 times the smallest.
//
// A draw is a composition of two exact steps:
//
//  1. Pick block b with probability W_b / W, W_b = sum of r^-s over the block's ranks,
//     W = the sum over all blocks. The weights are computed once (a direct sum for the
//     blocks of fewer than 8 ranks, Euler–Maclaurin for the others, see zipfBlockSum) and
//     put in an alias table (Walker; Vose's construction) in exact integer arithmetic:
//     block b gets q_b = floor(W_b/W·(1 - 2^-40)·2^128) units of 2^-128 (the floor of a
//     float64, so within a relative 2^-52 of W_b/W), and the units left over (a
//     probability of about 2^-40) go to block 0, which means "draw again". So P(b) is exactly
//     q_b/Σq, and the alias table represents the q_b exactly: one 64-bit random number
//     picks a column with its top bits and compares the others with the high bits of
//     the column's 128-bit threshold; only if they are equal (probability 2^-52 or less)
//     is a second number drawn to compare with the low 64 bits.
//  2. Within a block of 2^e > 1 ranks starting at rank a = m·2^e, draw d uniformly in
//     [0, 2^e) (in [0, n-a+1) for the last block if it is cut) and accept rank a+d with
//     probability (1+x)^-s, x = d/a (else draw d again). Accepted ranks have
//     probability proportional to 1·((a+d)/a)^-s ∝ (a+d)^-s: exactly the law P
//     restricted to the block. The test needs no floating-point work in most draws:
//     x < 1/m, so a uniform v below (1+1/m)^-s (precomputed per m, as an integer
//     threshold; 98.5% of the draws or more at s = 1) accepts at once. Otherwise, by
//     convexity and the sign of the third derivative, 1 - s·x <= (1+x)^-s <=
//     1 - s·x + s(s+1)/2·x², so v below the first bound accepts and v above the second
//     rejects, and only v in between (probability under s(s+1)/2·2^-12) evaluates
//     exp(-s·log1p(x)). The same 64-bit random number gives d (top e bits) and the
//     leading 53 (or 64-e) bits of v; the rest of v is drawn only when those do not
//     decide the test.
//
// Hence P(rank r) = P(block of r)·P(r | block) = W_b/W · r^-s/W_b = r^-s/W: the law is
// exact, not approximated. The numerical errors are float64 roundings: those of the W_b
// and W (relative error a few 1e-16, see zipfEulerMaclaurin), of W_b/W (2^-52), and of
// the acceptance test within multi-rank blocks (v has 53 bits or more, and
// (1+x)^-s >= 0.98^s is computed within a few ulps). So every P(k) is drawn with a
// relative error of about 1e-15 for any n and s; the rejection-inversion sampler
// (Hörmann & Derflinger 1996) this replaced resolved P(k) only to 2^-53 of its whole
// range of uniforms, a relative error of 1e-7 for each rank at n = 1e9, s ≈ 0.
type Zipf struct {
	n        uint64
	s        float64
	tab      []uint64              // the alias table: column i is thrHi<<idxBits | alias; nil if s == 0 or n == 1
	tabLo    []uint64              // the low 64 bits of the thresholds
	idxBits  uint                  // len(tab) = 2^idxBits
	fracMask uint64                // 2^(64-idxBits) - 1: the bits of a draw compared with thrHi
	partial  uint64                // the last block if it is cut at n (fewer than 2^e ranks), else 0
	partialN uint64                // ranks in that block
	sure     [1 << zipfMant]uint64 // sure[m-64]: 2^53·(1+1/m)^-s rounded down, an acceptance bound
	scramble bool
	perm     feistel
	hot      []uint32 // hot[k] = perm.permute(k) + 1 for the most popular ranks drawn; see zipfHot
	total    float64  // the sum of r^-s over the ranks 1..n (0 when the draw is uniform)
}

// zipfMant is the number of mantissa bits of the block layout: 2^zipfMant blocks per
// octave above zipfSingles.
const zipfMant = 6

// zipfSingles: ranks 1..zipfSingles-1 are blocks of their own (block index = rank);
// block 0 is the "draw again" column that takes the rounding left-over of the weights.
const zipfSingles = 2 << zipfMant

// zipfInvM[m - 2^zipfMant] = 1/m for the block mantissas m in [2^zipfMant, 2^(zipfMant+1)).
var zipfInvM = func() (t [1 << zipfMant]float64) {
	for i := range t {
		t[i] = 1 / float64(i+1<<zipfMant)
	}
	return t
}()

// NewZipf returns a Zipf generator over [0, n) with exponent s, scrambled or not (see
// Zipf). It panics if n is 0 or s is negative or not finite.
func NewZipf(n uint64, s float64, scramble bool) *Zipf {
	if n == 0 {
		panic("workload: NewZipf with n == 0")
	}
	if !(s >= 0) || math.IsInf(s, 1) {
		panic("workload: NewZipf exponent must be finite and >= 0")
	}
	z := &Zipf{n: n, s: s, scramble: scramble}
	if s != 0 && n > 1 {
		z.build()
	}
	if scramble {
		z.perm = newFeistel(n, zipfScrambleKey)
		if n <= 1<<32 {
			z.hot = make([]uint32, min(n, zipfHot)) // filled as ranks are drawn
		}
	}
	return z
}

// zipfHot is how many of the most popular ranks have their scrambled id kept in a table,
// filled the first time each is drawn. The permutation is four dependent multiply rounds,
// repeated when the result falls outside [0, n) (1.7 times on average for n = 1e7): about
// 20 ns in a simulation, where nothing else can overlap with it. Under Zipf(0.99) over 1e7
// ids, 70% of the draws are among the first 65,536 ranks, whose ids then cost one load
// from a table of at most 256 KB (of which only the pages of drawn ranks are touched).
const zipfHot = 65536

// zipfScrambleKey keys the scrambling bijection. It is fixed so that runs are
// reproducible; the value is arbitrary (the first 64 bits of the fractional part of pi).
const zipfScrambleKey = 0x243F6A8885A308D3

// Next returns the id for one request; t is ignored.
func (z *Zipf) Next(r *rand.Rand, _ int64) uint64 {
	k := z.rank(r)
	if k < uint64(len(z.hot)) {
		// hot[k] is the id plus one, or 0 before rank k is first drawn (or if its id is
		// 2^32 - 1, which is then computed every time).
		if v := z.hot[k]; v != 0 {
			return uint64(v - 1)
		}
		id := z.perm.permute(k)
		z.hot[k] = uint32(id + 1)
		return id
	}
	if z.scramble {
		return z.perm.permute(k)
	}
	return k
}

// Info reports Cardinality n.
func (z *Zipf) Info() Info { return Info{Cardinality: z.n} }

// ID returns the id that rank k (0 = most popular) is drawn as: k itself without
// scrambling, the fixed bijection of [0, n) with scrambling. k must be < n.
func (z *Zipf) ID(k uint64) uint64 {
	if k >= z.n {
		panic("workload: Zipf.ID rank out of range")
	}
	if z.scramble {
		return z.perm.permute(k)
	}
	return k
}

// Prob returns the probability that Next returns id: P(rank k) = (k+1)^-s / H(n, s) for
// the rank k that id stands for (the inverse of ID), H the sum over all ranks as the
// sampler computes it; 0 for an id outside [0, n).
func (z *Zipf) Prob(id uint64) float64 {
	if id >= z.n {
		return 0
	}
	if z.total == 0 {
		return 1 / float64(z.n)
	}
	k := id
	if z.scramble {
		k = z.perm.invert(id)
	}
	return math.Exp(-z.s*math.Log(float64(k)+1)) / z.total
}

// rank draws a rank in [0, n).
func (z *Zipf) rank(r *rand.Rand) uint64 {
	if z.tab == nil {
		return r.Uint64N(z.n) // s == 0: exact uniform; n == 1: 0
	}
	var b uint64
	for b == 0 { // block 0 means draw again
		// Alias table: the top idxBits bits pick column b, the others are compared with
		// the high part of its threshold, and, if equal (probability 2^(idxBits-64)), a
		// second number with the low part.
		u := r.Uint64()
		b = u >> (64 - z.idxBits)
		t := z.tab[b]
		f, thr := u&z.fracMask, t>>z.idxBits
		if f == thr && r.Uint64() >= z.tabLo[b] {
			f++ // a tie of the high bits (probability 2^-40 or less) is settled by 64 more
		}
		// b becomes the alias when f > thr, without a branch (which way goes is random):
		// the borrow of thr - f is 1 exactly then.
		_, gt := bits.Sub64(thr, f, 0)
		b ^= (b ^ t&(1<<z.idxBits-1)) & -gt
	}
	if b < zipfSingles {
		return b - 1 // block b is rank b
	}
	// Block b holds ranks m·2^e .. (m+1)·2^e - 1 (cut at n); draw one with probability
	// proportional to rank^-s.
	e := uint(b>>zipfMant) - 1
	m := b - uint64(e)<<zipfMant
	base := m << e
	sure := z.sure[m-1<<zipfMant]
	// One 64-bit number gives d (its top e bits) and the leading 64-e bits of the uniform
	// v of the acceptance test (53 if e <= 11): v = (vhi + U)·2^-53 with U uniform on
	// [0, wu), and U is drawn only if vhi does not decide the test (see accept).
	// (The last block, if cut at n, draws d and v separately.)
	wu := uint64(1) << (max(e, 11) - 11)
	if b == z.partial {
		wu = 1
	}
	for {
		var d, vhi uint64
		if b != z.partial {
			u := r.Uint64()
			d = u >> (64 - e)
			vhi = u << e >> 11
		} else {
			d = r.Uint64N(z.partialN)
			vhi = r.Uint64() >> 11
		}
		// v < sure·2^-53 <= (1 + 1/m)^-s < (1 + d/base)^-s: accept at once (the case of
		// about 1 - s/m of the draws); else the exact test.
		if vhi+wu <= sure || z.accept(r, d, vhi, wu, m, e) {
			return base + d - 1
		}
	}
}

// accept reports whether the acceptance test of rank passes for rank base+d of a block of
// mantissa m and width 2^e, with the uniform v = (vhi + U)·2^-53, U uniform on
// [0, wu) and drawn here if needed: whether v < (1 + x)^-s, x = d/base = d·2^-e/m.
// With lo = 1 - s·x <= (1+x)^-s <= up = lo + s(s+1)/2·x² (by convexity, and because the
// third derivative is negative), v < lo accepts and v >= up rejects without a
// transcendental function; only v in [lo, up) evaluates exp(-s·log1p(x)).
func (z *Zipf) accept(r *rand.Rand, d, vhi, wu, m uint64, e uint) bool {
	x := float64(int64(d)) * math.Float64frombits(uint64(1023-e)<<52) * zipfInvM[m-1<<zipfMant]
	sx := z.s * x
	lo := 1 - sx
	v := float64(int64(vhi)) * 0x1p-53
	w := float64(int64(wu)) * 0x1p-53
	if v+w <= lo {
		return true
	}
	up := lo + 0.5*sx*(x+sx)
	if v >= up {
		return false
	}
	v += float64(int64(r.Uint64()>>11)) * 0x1p-53 * w
	return v < lo || v < up && v < math.Exp(-z.s*math.Log1p(x))
}

// build computes the block weights and the alias table (see Zipf).
func (z *Zipf) build() {
	last := zipfBlockOf(z.n)
	z.idxBits = uint(bits.Len64(last)) // 2^idxBits > last: columns 0..last and padding
	size := 1 << z.idxBits
	z.fracMask = 1<<(64-z.idxBits) - 1
	if base, e := zipfBlockBase(last); last >= zipfSingles && z.n-base+1 < 1<<e {
		z.partial, z.partialN = last, z.n-base+1
	}

	for i := range z.sure {
		// A certified lower bound: exp and log1p are within a few ulps, 2^-40 is far more.
		p := math.Exp(-z.s*math.Log1p(zipfInvM[i])) * (1 - 0x1p-40)
		z.sure[i] = uint64(p * 0x1p53)
	}

	w := make([]float64, size)
	total := 0.0
	for b := uint64(1); b <= last; b++ {
		a, count := zipfBlockRange(b, z.n)
		w[b] = zipfBlockSum(a, count, z.s)
		total += w[b]
	}
	// Units of 2^-128: q_b = floor(W_b/W·(1 - 2^-40)·2^128), the floor of a float64 (so
	// within 2^-52 of W_b/W relatively, or 2^-128 absolutely), the 1 - 2^-40 making the sum
	// surely less than 2^128 (the relative rounding error of total is at most
	// 4096·2^-53 < 2^-40).
	z.total = total
	q := make([]u128, size)
	var sum u128
	for b := uint64(1); b <= last; b++ {
		q[b] = u128FromFrac(w[b] / total * (1 - 0x1p-40))
		sum = sum.add(q[b])
	}
	q[0] = u128{}.sub(sum) // 2^128 - sum: the "draw again" column
	z.tab, z.tabLo = zipfAlias(q, z.idxBits)
}

// u128 is an unsigned 128-bit integer, for the alias table's weights.
type u128 struct{ hi, lo uint64 }

func (x u128) add(y u128) u128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, c)
	return u128{hi, lo}
}

func (x u128) sub(y u128) u128 {
	lo, c := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, c)
	return u128{hi, lo}
}

func (x u128) less(y u128) bool { return x.hi < y.hi || x.hi == y.hi && x.lo < y.lo }

// u128FromFrac returns floor(x·2^128) for x in [0, 1).
func u128FromFrac(x float64) u128 {
	if !(x > 0) {
		return u128{}
	}
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1), exp <= 0
	mant := uint64(frac * 0x1p53)
	switch sh := exp + 128 - 53; { // x·2^128 = mant·2^sh, sh <= 75
	case sh >= 64:
		return u128{mant << (sh - 64), 0}
	case sh >= 0:
		return u128{mant >> (64 - sh), mant << sh}
	case sh > -64:
		return u128{0, mant >> -sh}
	}
	return u128{}
}

// zipfAlias returns the alias table (Vose's construction, in exact integer arithmetic) of
// the weights q, which must sum to exactly 2^128: len(q) = 2^idxBits columns of capacity
// c = 2^(128-idxBits) each. Column i has a threshold thr < c and an alias: a draw whose
// 128-idxBits bits of fraction are below thr yields i, else the alias. It is returned as
// thr>>64 << idxBits | alias, and the low 64 bits of thr. q is overwritten.
func zipfAlias(q []u128, idxBits uint) (tab, tabLo []uint64) {
	c := u128{hi: 1 << (64 - idxBits)} // column capacity
	tab = make([]uint64, len(q))
	tabLo = make([]uint64, len(q))
	small := make([]uint64, 0, len(q))
	large := make([]uint64, 0, len(q))
	for i, qi := range q {
		if qi.less(c) {
			small = append(small, uint64(i))
		} else {
			large = append(large, uint64(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		l := small[len(small)-1]
		small = small[:len(small)-1]
		g := large[len(large)-1]
		tab[l], tabLo[l] = q[l].hi<<idxBits|g, q[l].lo
		q[g] = q[g].sub(c.sub(q[l]))
		if q[g].less(c) {
			large = large[:len(large)-1]
			small = append(small, g)
		}
	}
	// The columns left hold exactly c each (the weights sum to len(q)·c and every
	// remaining large one is >= c): threshold 0 and alias to themselves.
	for _, i := range large {
		tab[i] = i
	}
	if len(small) > 0 {
		panic("workload: Zipf alias weights do not sum to 2^128")
	}
	return tab, tabLo
}

// zipfBlockOf returns the block of rank r >= 1.
func zipfBlockOf(r uint64) uint64 {
	if r < zipfSingles {
		return r
	}
	e := uint(bits.Len64(r)) - 1 - zipfMant
	return r>>e + uint64(e)<<zipfMant
}

// zipfBlockBase returns the first rank of block b >= 1 and its log2 width e.
func zipfBlockBase(b uint64) (uint64, uint) {
	if b < zipfSingles {
		return b, 0
	}
	e := uint(b>>zipfMant) - 1
	return (b - uint64(e)<<zipfMant) << e, e
}

// zipfBlockRange returns the first rank of block b and its number of ranks, cut at n.
func zipfBlockRange(b, n uint64) (uint64, uint64) {
	a, e := zipfBlockBase(b)
	return a, min(uint64(1)<<e, n-a+1)
}

// zipfBlockSum returns Σ_{r=a}^{a+count-1} r^-s for s > 0: directly for fewer than 8
// terms, by Euler–Maclaurin (zipfEulerMaclaurin) otherwise. Blocks of 8 ranks or more
// start at a >= 512, where Euler–Maclaurin converges in a few terms for any s whose
// a^-s does not underflow.
func zipfBlockSum(a, count uint64, s float64) float64 {
	if count < 8 {
		sum := 0.0
		for r := a + count - 1; r >= a; r-- { // small terms first
			sum += math.Pow(float64(r), -s)
		}
		return sum
	}
	sum, _ := zipfEulerMaclaurin(a, count, s)
	return sum
}

// zipfEMCoef[j-1] = B_2j/(2j)!, the Euler–Maclaurin coefficients (B the Bernoulli numbers).
var zipfEMCoef = [...]float64{
	1.0 / 12, -1.0 / 720, 1.0 / 30240, -1.0 / 1209600, 1.0 / 47900160,
	-691.0 / 1307674368000, 1.0 / 74724249600, -3617.0 / 10670622842880000,
}

// zipfEulerMaclaurin returns S = Σ_{r=a}^{b} r^-s, b = a+count-1, a >= 1, s > 0, and a
// bound on its truncation error, by the Euler–Maclaurin formula (DLMF 2.10.1) with
// f(x) = x^-s:
//
//	S = ∫_a^b f + (f(a)+f(b))/2 + Σ_{j=1..m-1} t_j + R_m,
//	t_j = B_2j/(2j)!·(f^(2j-1)(b) - f^(2j-1)(a)) = B_2j/(2j)!·(g_2j-1(a) - g_2j-1(b)),
//	R_m = ∫_a^b (B_2m - B_2m(x - ⌊x⌋))/(2m)!·f^(2m)(x) dx,
//
// with g_k(x) = s(s+1)···(s+k-1)·x^(-s-k) = (-1)^(k+1)·f^(k)(x). On [0, 1], B_2m - B_2m(t)
// has the sign of B_2m and is at most 2|B_2m| in magnitude, and f^(2m) > 0, so
// R_m = θ·t_m with θ in [0, 2): after adding t_p the error R_(p+1) = R_p - t_p =
// (θ-1)·t_p is at most |t_p|, rigorously. Terms are added until |t_p| <= 2^-60·S, a
// relative truncation error under 1e-18. Their ratio is about ((s+2p)/(2πa))², so for
// a >= 512 (every block this is used for) that takes 2 or 3 terms at s ~ 1, and at most
// the 8 available for any s up to ~120; beyond, a^-s underflows and S is returned as 0,
// while the block's weight is below 2^-1000 (rank 1 weighs 1), and would get no unit of
// 2^-64 anyway.
//
// The integral is a^(1-s)·(exp((1-s)L) - 1)/(1-s) with L = log1p((b-a)/a), evaluated as
// a·a^-s·L·expm1((1-s)L)/((1-s)L) (helper2), without cancellation and exact in the limit
// s = 1; each factor is within a few ulps, and the corrections are small (the first is
// about s(s+1)/(12a²) of S), so S has a relative rounding error of a few 1e-16, far below
// 1e-12 (TestZipfBlockSums checks 1e-14 against direct sums).
func zipfEulerMaclaurin(a, count uint64, s float64) (sum, errBound float64) {
	af, bf := float64(a), float64(a+count-1)
	fa := math.Pow(af, -s)
	if fa == 0 {
		return 0, 0
	}
	fb := math.Pow(bf, -s)
	l := math.Log1p(float64(count-1) / af)
	sum = af*fa*l*helper2((1-s)*l) + 0.5*(fa+fb)
	ga, gb := fa*s/af, fb*s/bf // g_1(a), g_1(b)
	var t float64
	for j, c := range zipfEMCoef {
		t = c * (ga - gb)
		sum += t
		if math.Abs(t) <= 0x1p-60*sum {
			break
		}
		m := float64(2*j + 1) // g_m -> g_(m+2)
		ga *= (s + m) * (s + m + 1) / (af * af)
		gb *= (s + m) * (s + m + 1) / (bf * bf)
	}
	return sum, math.Abs(t)
}

// taylorThreshold is where helper2 switches to its Taylor polynomial (the value Apache
// Commons RNG uses): below it the truncation error, of order x^4, is far under the float64
// epsilon, while expm1(x)/x loses accuracy.
const taylorThreshold = 1e-8

// helper2(x) = expm1(x)/x, and its limit 1 at x = 0 (Taylor: 1 + x/2 + x²/6 + x³/24).
func helper2(x float64) float64 {
	if math.Abs(x) > taylorThreshold {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}

// feistel is a keyed bijection of [0, n): a 4-round Feistel network on the w-bit words,
// 2^w being the smallest power of two >= n, followed by cycle-walking (Black & Rogaway,
// "Ciphers with arbitrary finite domains", CT-RSA 2002): the permutation of [0, 2^w) is
// applied again until the value falls below n, which yields a bijection of [0, n) and
// takes fewer than 2 applications on average since 2^w < 2n.
//
// The word is split into a high half of w - w/2 bits and a low half of w/2 bits; rounds
// alternately xor a keyed hash of one half into the other (an unbalanced Feistel network
// in the sense of Schneier & Kelsey, FSE 1996). Each round is its own inverse, so the
// whole is a bijection whatever the hash; the hash only decides how well it mixes.
type feistel struct {
	n                uint64
	loBits           uint // width of the low half
	loShift, hiShift uint // 64 - the width of each half, the shift of its round hash
	loMask           uint64
	keys             [feistelRounds]uint64
}

const feistelRounds = 4 // Luby & Rackoff (SIAM J. Comput. 17(2), 1988): 4 rounds suffice; permute has them written out

func newFeistel(n uint64, key uint64) feistel {
	w := uint(bits.Len64(n - 1)) // bits of n-1, the largest value; 0 when n == 1
	lo := w / 2
	p := feistel{n: n, loBits: lo, loShift: 64 - lo, hiShift: 64 - (w - lo), loMask: 1<<lo - 1}
	st := key
	for i := range p.keys {
		st += 0x9E3779B97F4A7C15 // splitmix64's increment (the golden ratio)
		p.keys[i] = splitmix.Mix(st)
	}
	return p
}

// permute maps x in [0, n) to its image in [0, n): the Feistel permutation of [0, 2^w)
// (its four rounds written out), applied until the value is below n.
func (p *feistel) permute(x uint64) uint64 {
	for {
		lo, hi := x&p.loMask, x>>p.loBits
		hi ^= roundHash(lo, p.keys[0], p.hiShift)
		lo ^= roundHash(hi, p.keys[1], p.loShift)
		hi ^= roundHash(lo, p.keys[2], p.hiShift)
		lo ^= roundHash(hi, p.keys[3], p.loShift)
		x = hi<<p.loBits | lo
		if x < p.n {
			return x
		}
	}
}

// invert is the inverse of permute: the rounds undone in reverse order, applied until the
// value is below n (the inverse of cycle walking is cycle walking with the inverse).
func (p *feistel) invert(x uint64) uint64 {
	for {
		lo, hi := x&p.loMask, x>>p.loBits
		lo ^= roundHash(hi, p.keys[3], p.loShift)
		hi ^= roundHash(lo, p.keys[2], p.hiShift)
		lo ^= roundHash(hi, p.keys[1], p.loShift)
		hi ^= roundHash(lo, p.keys[0], p.hiShift)
		x = hi<<p.loBits | lo
		if x < p.n {
			return x
		}
	}
}

// roundHash is the Feistel round function: the top 64-shift bits of (v ^ key)·φ·2^64
// with the key added back, a keyed multiplicative hash (Knuth, TAOCP vol. 3, 6.4,
// "Fibonacci hashing"); its top bits depend on all the bits of v. shift = 64 gives 0 (a
// Go shift by 64 is 0).
func roundHash(v, key uint64, shift uint) uint64 {
	h := (v^key)*0x9E3779B97F4A7C15 + key
	return h >> shift
}
