package workload

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Zipf draws ids whose popularity follows Zipf's law: rank k in [0, n) is drawn with
// probability
//
//	P(k) = (k+1)^-s / sum_{j=1..n} j^-s
//
// exactly (up to floating-point rounding of the order of 1e-15), for every exponent
// s >= 0: s = 0 is the uniform distribution, s = 1 is handled through the limit forms of
// the integrals, and there is no restriction s > 1 as in math/rand's Zipf. A draw costs
// O(1) expected time (about one uniform variate, one log1p and one exp; the rejection
// test is rarely evaluated) and no memory proportional to n, so n can be 1e9 or more.
//
// Without scrambling the value is the rank itself: 0 is the most popular id, then 1...
// With scrambling the value is ID(rank), where ID is a fixed keyed bijection of [0, n),
// so the popular ids are spread over the whole id space (as YCSB's "scrambled zipfian"
// does, but with a bijection, so the probabilities stay exact: id ID(k) has probability
// P(k)).
type Zipf struct {
	n        uint64
	nf       float64 // float64(n)
	s        float64 // exponent
	oneMinus float64 // 1 - s
	hX1      float64 // H(1.5) - 1: the lower end of the uniform variate
	hN       float64 // H(n + 1/2): the upper end of the uniform variate
	squeeze  float64 // accept at once when k - x <= squeeze
	scramble bool
	perm     feistel
}

// NewZipf returns a Zipf generator over [0, n) with exponent s, scrambled or not (see
// Zipf). It panics if n is 0 or s is negative or not finite.
func NewZipf(n uint64, s float64, scramble bool) *Zipf {
	if n == 0 {
		panic("workload: NewZipf with n == 0")
	}
	if !(s >= 0) || math.IsInf(s, 1) {
		panic("workload: NewZipf exponent must be finite and >= 0")
	}
	z := &Zipf{n: n, nf: float64(n), s: s, oneMinus: 1 - s, scramble: scramble}
	// Rejection-inversion, Hörmann & Derflinger, "Rejection-inversion to generate variates
	// from monotone discrete distributions", ACM TOMACS 6(3):169-184, 1996, algorithm ZRI,
	// in the form of Apache Commons RNG's RejectionInversionZipfSampler: the hat is
	// h(x) = x^-s on [1/2, n+1/2] with integral H(x) = (x^(1-s) - 1)/(1-s) (log x when
	// s = 1), which has a limit at s = 1 and so works for every s >= 0; ranks are 1..n
	// there and we subtract 1.
	z.hX1 = z.hIntegral(1.5) - 1
	z.hN = z.hIntegral(z.nf + 0.5)
	// The squeeze constant of ZRI (the paper's "s"): if k - x <= squeeze, x is certainly
	// under the histogram of P and k is accepted without evaluating the rejection test.
	z.squeeze = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	if scramble {
		z.perm = newFeistel(n, zipfScrambleKey)
	}
	return z
}

// zipfScrambleKey keys the scrambling bijection. It is fixed so that runs are
// reproducible; the value is arbitrary (the first 64 bits of the fractional part of pi).
const zipfScrambleKey = 0x243F6A8885A308D3

// Next returns the id for one request; t is ignored.
func (z *Zipf) Next(r *rand.Rand, _ int64) uint64 {
	k := z.rank(r)
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

// rank draws a rank in [0, n).
func (z *Zipf) rank(r *rand.Rand) uint64 {
	if z.s == 0 || z.n == 1 {
		return r.Uint64N(z.n) // exact uniform; the general path would give the same law
	}
	for {
		// u is uniform on (H(1.5) - h(1), H(n + 1/2)]; Float64 is in [0, 1).
		u := z.hN + r.Float64()*(z.hX1-z.hN)
		x := z.hIntegralInverse(u)
		// k = round(x), clamped to [1, n] against rounding errors at the ends.
		kf := x + 0.5
		var k uint64
		switch {
		case !(kf >= 1): // also catches NaN
			k = 1
		case kf >= z.nf:
			k = z.n
		default:
			k = uint64(kf)
		}
		fk := float64(k)
		if fk-x <= z.squeeze || u >= z.hIntegral(fk+0.5)-z.h(fk) {
			return k - 1
		}
	}
}

// h(x) = x^-s, the hat function.
func (z *Zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

// hIntegral(x) = H(x) = (x^(1-s) - 1)/(1-s), written as helper2((1-s)·log x)·log x so
// that it is accurate for s near 1 and equal to log x at s = 1.
func (z *Zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return helper2(z.oneMinus*lx) * lx
}

// hIntegralInverse(y) = H^-1(y) = (1 + (1-s)·y)^(1/(1-s)), written as
// exp(helper1((1-s)·y)·y) (equal to exp(y) at s = 1).
func (z *Zipf) hIntegralInverse(y float64) float64 {
	t := y * z.oneMinus
	if t < -1 {
		// (1-s)·y >= -1 holds mathematically on the range of u; clamp rounding errors.
		t = -1
	}
	return math.Exp(helper1(t) * y)
}

// taylorThreshold is where helper1 and helper2 switch to their Taylor polynomials
// (the value Apache Commons RNG uses): below it the truncation error, of order x^4,
// is far under the float64 epsilon, while log1p(x)/x and expm1(x)/x lose accuracy.
const taylorThreshold = 1e-8

// helper1(x) = log1p(x)/x, and its limit 1 at x = 0 (Taylor: 1 - x/2 + x²/3 - x³/4).
func helper1(x float64) float64 {
	if math.Abs(x) > taylorThreshold {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

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
	n              uint64
	loBits, hiBits uint
	loMask         uint64
	keys           [feistelRounds]uint64
}

const feistelRounds = 4 // Luby & Rackoff (SIAM J. Comput. 17(2), 1988): 4 rounds suffice

func newFeistel(n uint64, key uint64) feistel {
	w := uint(bits.Len64(n - 1)) // bits of n-1, the largest value; 0 when n == 1
	lo := w / 2
	p := feistel{n: n, loBits: lo, hiBits: w - lo, loMask: 1<<lo - 1}
	st := key
	for i := range p.keys {
		st += 0x9E3779B97F4A7C15 // splitmix64's increment (the golden ratio)
		p.keys[i] = mix64(st)
	}
	return p
}

// permute maps x in [0, n) to its image in [0, n).
func (p *feistel) permute(x uint64) uint64 {
	for {
		x = p.round(x)
		if x < p.n {
			return x
		}
	}
}

// round is the Feistel permutation of [0, 2^w).
func (p *feistel) round(x uint64) uint64 {
	lo, hi := x&p.loMask, x>>p.loBits
	for i := 0; i < feistelRounds; i += 2 {
		hi ^= roundHash(lo, p.keys[i], p.hiBits)
		lo ^= roundHash(hi, p.keys[i+1], p.loBits)
	}
	return hi<<p.loBits | lo
}

// roundHash is the Feistel round function: the top `bits` bits of (v ^ key)·φ·2^64
// with the key added back, a keyed multiplicative hash (Knuth, TAOCP vol. 3, 6.4,
// "Fibonacci hashing"); its top bits depend on all the bits of v. bits = 0 gives 0 (a
// Go shift by 64 is 0).
func roundHash(v, key uint64, bits uint) uint64 {
	h := (v^key)*0x9E3779B97F4A7C15 + key
	return h >> (64 - bits)
}

// mix64 is the finalizer of splitmix64 (Steele, Lea & Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014; constants from David Stafford's "Mix13"),
// a bijective 64-bit hash whose every output bit depends on every input bit.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}
