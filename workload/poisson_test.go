package workload

import (
	"math"
	"testing"
)

const sec = int64(1e9)

// windowCounts runs the arrival process from start until end and counts the arrivals in
// consecutive windows of width w starting at start.
func windowCounts(a Arrivals, seed uint64, start, end, w int64) []int {
	r := newRand(seed)
	counts := make([]int, (end-start+w-1)/w)
	prev := start
	for t := a.Next(r, start); t < end; t = a.Next(r, t) {
		if t < prev {
			panic("arrival before the previous one")
		}
		prev = t
		counts[(t-start)/w]++
	}
	return counts
}

// TestPoissonRamp runs a Poisson process over a ramp from 1000/s to 10000/s in 2 hours
// followed by 10 minutes at a constant 10000/s (about 4.56e7 arrivals, seed 15) and
// counts arrivals in 130 one-minute windows. For each window, with I = Integral of the
// window (the exact expectation, which is also the variance of a Poisson count):
//   - |count - I| < 5·sqrt(I) (a correct process fails a window with prob. 6e-7);
//   - Σ (count - I)²/I, ~ chi-square with 130 df, lies between its 0.0005 and 0.9995
//     quantiles (≈ 83 and 192 by chi2Upper): too small means too regular a process
//     (UniformArrivals gives ≈ 0), too large too noisy or a wrong mean;
//   - the total is within 5·sqrt(total I) (±0.074%) of Integral(0, 130 min).
func TestPoissonRamp(t *testing.T) {
	const minute = 60 * sec
	s := Schedule{{0, 1000}, {120 * minute, 10000}}
	counts := windowCounts(NewPoisson(s), 15, 0, 130*minute, minute)
	chi, total, totalExp := 0.0, 0, s.Integral(0, 130*minute)
	for i, c := range counts {
		exp := s.Integral(int64(i)*minute, int64(i+1)*minute)
		z := (float64(c) - exp) / math.Sqrt(exp)
		if math.Abs(z) > 5 {
			t.Errorf("window %d: %d arrivals, expected %.0f (z = %.1f)", i, c, exp, z)
		}
		chi += z * z
		total += c
	}
	lo, hi := chi2Upper(len(counts), -z9995), chi2Upper(len(counts), z9995)
	if chi < lo || chi > hi {
		t.Errorf("Σz² = %.1f outside [%.1f, %.1f] (%d df)", chi, lo, hi, len(counts))
	}
	if d := math.Abs(float64(total) - totalExp); d > 5*math.Sqrt(totalExp) {
		t.Errorf("total %d arrivals, expected %.0f", total, totalExp)
	}
	t.Logf("total %d expected %.0f; Σz² = %.1f in [%.1f, %.1f]", total, totalExp, chi, lo, hi)
}

// TestPoissonExponentialGaps checks the gaps at a constant 1e5/s (mean 1/λ = 10000 ns):
// N = 1e6 gaps (seed 16). For Exp(λ) gaps, with μ = 1e4 ns:
//   - sample mean within 5·μ/sqrt(N) = ±50 ns of μ;
//   - sample variance within 5·μ²·sqrt(8/N) (±1.41%) of μ² (Var of the sample variance
//     of an exponential is (μ4 - σ⁴)/N = 8μ⁴/N);
//   - the deciles: chi-square of the counts in the 10 bins with edges -μ·ln(1 - j/10),
//     expected N/10 each, under the 0.999 quantile with 9 df (27.88);
//   - lag-1 correlation of gaps within ±5/sqrt(N) of 0 (independent gaps).
func TestPoissonExponentialGaps(t *testing.T) {
	const N, mu = 1_000_000, 1e4
	r := newRand(16)
	a := NewPoisson(Schedule{{0, 1e5}})
	gaps := make([]float64, N)
	prev := a.Next(r, 0)
	for i := range gaps {
		next := a.Next(r, prev)
		gaps[i] = float64(next - prev)
		prev = next
	}
	mean, m2 := 0.0, 0.0
	for _, g := range gaps {
		mean += g
	}
	mean /= N
	for _, g := range gaps {
		m2 += (g - mean) * (g - mean)
	}
	variance := m2 / (N - 1)
	if math.Abs(mean-mu) > 5*mu/math.Sqrt(N) {
		t.Errorf("mean gap %.1f ns, want %v ± %.0f", mean, mu, 5*mu/math.Sqrt(N))
	}
	if math.Abs(variance-mu*mu) > 5*mu*mu*math.Sqrt(8.0/N) {
		t.Errorf("gap variance %.4g, want %.4g (cv² %.4f)", variance, mu*mu, variance/(mean*mean))
	}
	obs := make([]int, 10)
	exp := make([]float64, 10)
	for i := range exp {
		exp[i] = N / 10
	}
	for _, g := range gaps {
		obs[min(9, int(10*(1-math.Exp(-g/mu))))]++
	}
	if chi := chiSquare(obs, exp); chi > 27.88 {
		t.Errorf("gap deciles chi-square %.1f > 27.88: %v", chi, obs)
	}
	c := 0.0
	for i := 1; i < N; i++ {
		c += (gaps[i] - mean) * (gaps[i-1] - mean)
	}
	if rho := c / m2; math.Abs(rho) > 5/math.Sqrt(N) {
		t.Errorf("lag-1 correlation of gaps %.4f", rho)
	}
}

// TestPoissonHighRate checks that sub-nanosecond gaps are not rounded away: at 3e9/s
// (three arrivals per ns on average) over 1 ms, starting from the exact position kept
// between calls, the count is within 5·sqrt(3e6) of 3e6 (seed 17) and times never
// decrease. Without the kept fraction every arrival would move to the next whole ns and
// the count would be about 1e6.
func TestPoissonHighRate(t *testing.T) {
	s := Schedule{{0, 3e9}}
	counts := windowCounts(NewPoisson(s), 17, 0, 1e6, 1e6)
	if exp := s.Integral(0, 1e6); math.Abs(float64(counts[0])-exp) > 5*math.Sqrt(exp) {
		t.Errorf("%d arrivals in 1 ms at 3e9/s, expected %.0f", counts[0], exp)
	}
}

// TestPoissonZeroRate: a schedule with a step down to rate 0 between 1 s and 2 s has no
// arrival in [1 s, 2 s); one that ramps down to 0 at 1 s and stays there ends: Next
// returns Never (and keeps returning it), after about Integral = 500 arrivals (within
// 5·sqrt(500)); starting inside the zero stretch jumps to its end. Seeds 18, 19.
func TestPoissonZeroRate(t *testing.T) {
	r := newRand(18)
	gap := Schedule{{0, 1000}, {sec, 1000}, {sec, 0}, {2 * sec, 0}, {2 * sec, 1000}}
	a := NewPoisson(gap)
	n := 0
	for at := a.Next(r, 0); at < 3*sec; at = a.Next(r, at) {
		if at >= sec && at < 2*sec {
			t.Fatalf("arrival at %d inside the zero-rate stretch", at)
		}
		n++
	}
	if exp := 2000.0; math.Abs(float64(n)-exp) > 5*math.Sqrt(exp) {
		t.Errorf("%d arrivals, expected %v", n, exp)
	}
	if at := NewPoisson(gap).Next(r, sec+5); at < 2*sec || at > 2*sec+20e6 {
		t.Errorf("from inside the zero stretch: first arrival at %d", at)
	}

	r = newRand(19)
	end := Schedule{{0, 1000}, {sec, 0}}
	a = NewPoisson(end)
	n = 0
	at := a.Next(r, 0)
	for ; at != Never; at = a.Next(r, at) {
		if at > sec {
			t.Fatalf("arrival at %d after the rate reached 0", at)
		}
		n++
	}
	if math.Abs(float64(n)-500) > 5*math.Sqrt(500) {
		t.Errorf("%d arrivals before the end, expected 500", n)
	}
	if a.Next(r, at) != Never || a.Next(r, 5*sec) != Never {
		t.Errorf("process restarted after Never")
	}
	if NewPoisson(Schedule{{0, 0}}).Next(r, -sec) != Never {
		t.Errorf("rate 0 everywhere did not give Never")
	}
}

// TestPoissonHistory runs in negative (history) time, starting before the schedule's
// first point: 50/s constant before -2 h, a ramp from 50/s to 1000/s between -2 h and
// -1 h, down to 0 at 0 and 0 after; from -3 h (seed 21). Counts in the 3 one-hour
// windows are within 5·sqrt(I) of their Integral I (180000, 1890000, 1800000), there is
// no arrival at or after 0 (Never comes first), and times never decrease.
func TestPoissonHistory(t *testing.T) {
	const hour = 3600 * sec
	s := Schedule{{-2 * hour, 50}, {-hour, 1000}, {0, 0}}
	r := newRand(21)
	a := NewPoisson(s)
	counts := make([]int, 3)
	prev := int64(-3 * hour)
	at := a.Next(r, prev)
	for ; at != Never; at = a.Next(r, at) {
		if at < prev || at >= 0 {
			t.Fatalf("arrival at %d after %d", at, prev)
		}
		prev = at
		counts[(at+3*hour)/hour]++
	}
	for i, c := range counts {
		exp := s.Integral(int64(i-3)*hour, int64(i-2)*hour)
		if math.Abs(float64(c)-exp) > 5*math.Sqrt(exp) {
			t.Errorf("hour %d: %d arrivals, expected %.0f", i-3, c, exp)
		}
	}
}

// TestPoissonTimeRescaling checks exactness where the inversion crosses many segment
// boundaries, with the time-rescaling theorem (Brown, Barbieri, Ventura, Kass & Frank,
// Neural Computation 14:325-346, 2002): for a Poisson process of cumulative intensity Λ,
// the rescaled gaps Λ(T_i) - Λ(T_{i-1}) are independent Exp(1).
//
// The schedule has 20001 points 1 ms apart with random rates in [0, 200)/s (seed 24):
// a quarter are 0, a fifth are steps (two points at the same time), so the mean gap of
// about 13 ms crosses about 13 segments (a 1% error in the mass of the segments crossed
// shifts the mean by ~1%, over 6 standard errors). 250 passes over it, each a fresh start at the
// first point, give N ≈ 3.8e5 rescaled gaps, which must have: mean within 5/sqrt(N)
// (±0.8%) of 1; variance within 5·sqrt(8/N) (±2.3%) of 1; decile counts (edges -ln(1-j/10))
// under the chi-square 0.999 quantile with 9 df (27.88).
func TestPoissonTimeRescaling(t *testing.T) {
	r := newRand(24)
	s := make(Schedule, 0, 20001)
	for i := range int64(20001) {
		rate := 0.0
		if r.IntN(4) > 0 {
			rate = r.Float64() * 200
		}
		at := i * 1e6
		if i > 0 && r.IntN(5) == 0 {
			at = s[len(s)-1].At // a step
		}
		s = append(s, Point{at, rate})
	}
	end := s[len(s)-1].At
	p := newPlan(s)
	var gaps []float64
	for range 250 {
		a := NewPoisson(s)
		prevL := 0.0
		for at := a.Next(r, 0); at < end; at = a.Next(r, at) {
			l := p.cumAt(at)
			gaps = append(gaps, l-prevL)
			prevL = l
		}
	}
	N := float64(len(gaps))
	mean, m2 := 0.0, 0.0
	for _, g := range gaps {
		mean += g
	}
	mean /= N
	for _, g := range gaps {
		m2 += (g - mean) * (g - mean)
	}
	variance := m2 / (N - 1)
	if math.Abs(mean-1) > 5/math.Sqrt(N) {
		t.Errorf("rescaled gaps: mean %.4f, want 1 ± %.4f (N = %.0f)", mean, 5/math.Sqrt(N), N)
	}
	if math.Abs(variance-1) > 5*math.Sqrt(8/N) {
		t.Errorf("rescaled gaps: variance %.4f, want 1 ± %.4f", variance, 5*math.Sqrt(8/N))
	}
	obs := make([]int, 10)
	exp := make([]float64, 10)
	for i := range exp {
		exp[i] = N / 10
	}
	for _, g := range gaps {
		obs[min(9, int(10*(1-math.Exp(-g))))]++
	}
	if chi := chiSquare(obs, exp); chi > 27.88 {
		t.Errorf("rescaled gap deciles: chi-square %.1f > 27.88: %v", chi, obs)
	}
	t.Logf("N = %.0f rescaled gaps: mean %.4f variance %.4f", N, mean, variance)
}

// TestPoissonConstantShortWay checks the constant-rate short way of Next against the general
// walk of the segments: a schedule of one point and the same rate written as two points at
// the same time (which takes the general way) must give the same 200,000 arrivals from the
// same random numbers (seed 31), to the exact fractional position, at rates from 0.5/s to
// 1e9/s, starting at, before and after the schedule's first point; and Next called afresh
// (t not the last arrival) must agree too.
func TestPoissonConstantShortWay(t *testing.T) {
	for _, rate := range []float64{0.5, 60000, 1e9} {
		for _, at := range []int64{0, 3 * sec} {
			one := NewPoisson(Schedule{{At: at, Rate: rate}})
			two := NewPoisson(Schedule{{At: at, Rate: rate}, {At: at, Rate: rate}})
			r1, r2 := newRand(31), newRand(31)
			t1, t2 := int64(0), int64(0)
			for i := range 200_000 {
				if i%1000 == 999 { // start afresh from a time that is not the last arrival
					t1, t2 = t1+7, t2+7
				}
				t1, t2 = one.Next(r1, t1), two.Next(r2, t2)
				// The exact positions too: a rounding difference shows there long before
				// it moves an arrival by a nanosecond.
				if t1 != t2 || one.lastBase != two.lastBase || one.lastFrac != two.lastFrac {
					t.Fatalf("rate %v from %d, arrival %d: %d (%d + %v) the short way, %d (%d + %v) the general way",
						rate, at, i, t1, one.lastBase, one.lastFrac, t2, two.lastBase, two.lastFrac)
				}
			}
		}
	}
}
