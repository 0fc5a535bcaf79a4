package workload

import (
	"math"
	"testing"
)

const ms = int64(1e6)

// bruteIntegral is Burst.Integral the long way: the schedule's integral over [a, c) plus
// (Factor - 1) times its integral over each burst that [a, c) overlaps, one by one.
func bruteIntegral(s Schedule, b Burst, a, c int64) float64 {
	sum := s.Integral(a, c)
	p := a - b.phase(a)
	for ; p < c; p += b.Every {
		if lo, hi := max(a, p), min(c, p+b.Width); lo < hi {
			sum += (b.Factor - 1) * s.Integral(lo, hi)
		}
	}
	return sum
}

func TestBurstCheck(t *testing.T) {
	good := Burst{Every: 60 * sec, Width: 2 * sec, Factor: 10}
	if err := good.Check(); err != nil {
		t.Fatalf("%+v: %v", good, err)
	}
	for _, b := range []Burst{
		{Every: 0, Width: 1, Factor: 2},
		{Every: -sec, Width: 1, Factor: 2},
		{Every: sec, Width: 0, Factor: 2},
		{Every: sec, Width: sec, Factor: 2},
		{Every: sec, Width: 1, Offset: -1, Factor: 2},
		{Every: sec, Width: 1, Offset: sec, Factor: 2},
		{Every: sec, Width: 1, Factor: 0.99},
		{Every: sec, Width: 1, Factor: math.NaN()},
		{Every: sec, Width: 1, Factor: math.Inf(1)},
	} {
		if b.Check() == nil {
			t.Errorf("%+v: Check accepted it", b)
		}
	}
}

// TestBurstPhase: bursts start at Offset + k·Every for every k, negative times included.
func TestBurstPhase(t *testing.T) {
	b := Burst{Every: 10, Width: 3, Offset: 4, Factor: 2}
	for tm := int64(-35); tm < 35; tm++ {
		want := ((tm-4)%10 + 10) % 10
		if got := b.phase(tm); got != want {
			t.Errorf("phase(%d) = %d, want %d", tm, got, want)
		}
		if got := b.InBurst(tm); got != (want < 3) {
			t.Errorf("InBurst(%d) = %v", tm, got)
		}
	}
	big := Burst{Every: 1 << 62, Width: 1, Offset: 1<<62 - 1, Factor: 2}
	for _, tm := range []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, Never} {
		if p := big.phase(tm); p < 0 || p >= big.Every {
			t.Errorf("phase(%d) = %d out of [0, Every)", tm, p)
		}
	}
}

// TestBurstIntegral compares Burst.Integral, which sums whole bursts in closed form, with
// bruteIntegral over featureSchedule (ramps, steps, zero stretches, constant ends) for
// several bursts and 3000 random windows in [-10 s, 80 s) (seed 30): they agree within
// 1e-9 relative (plus 1e-9 absolute). Integral(a, c) = -Integral(c, a), and one period
// at a constant rate r holds r·(Factor·Width + Every - Width).
func TestBurstIntegral(t *testing.T) {
	r := newRand(30)
	for _, b := range []Burst{
		{Every: sec, Width: 100 * ms, Factor: 10},
		{Every: 3 * sec, Width: 700 * ms, Offset: 1300 * ms, Factor: 4},
		{Every: 7 * ms, Width: 1, Offset: 3, Factor: 1000},
		{Every: 60 * sec, Width: 2 * sec, Factor: 1},
	} {
		for range 3000 {
			x, y := r.Int64N(90*sec)-10*sec, r.Int64N(90*sec)-10*sec
			a, c := min(x, y), max(x, y)
			got, want := b.Integral(featureSchedule, a, c), bruteIntegral(featureSchedule, b, a, c)
			if math.Abs(got-want) > 1e-9*math.Abs(want)+1e-9 {
				t.Fatalf("%+v: Integral(%d, %d) = %.12g, brute force %.12g", b, a, c, got, want)
			}
			if back := b.Integral(featureSchedule, c, a); back != -got {
				t.Fatalf("%+v: Integral(%d, %d) = %g, want %g", b, c, a, back, -got)
			}
		}
	}
	b := Burst{Every: 60 * sec, Width: 2 * sec, Offset: 5 * sec, Factor: 10}
	s := Schedule{{0, 1000}}
	if got := b.Integral(s, 17*sec, 77*sec); math.Abs(got-1000*(10*2+58)) > 1e-6 {
		t.Errorf("one period at 1000/s: %v, want 78000", got)
	}
	if got, want := b.MeanFactor(), 78.0/60; math.Abs(got-want) > 1e-15 {
		t.Errorf("MeanFactor = %v, want %v", got, want)
	}
}

// TestBurstWalkInverts holds the inversion itself to the integral, with no randomness in
// between: for 20000 random pairs x < y in [-5 s, 70 s) (seed 38) at which the rate is at
// least 50/s, walking Integral(x, y) on from x must land on y to within 1 ns (the float64
// rounding of an integral of up to 2e5 is about 1e-11, or 0.2 ns at 50/s). An edge placed
// one nanosecond wrong moves the landing point by (Factor - 1) ns per edge crossed.
func TestBurstWalkInverts(t *testing.T) {
	r := newRand(38)
	for _, b := range []Burst{
		{Every: 3 * sec, Width: 700 * ms, Offset: 1300 * ms, Factor: 4},
		{Every: 7 * ms, Width: 2*ms + 1, Offset: 3, Factor: 100},
	} {
		bp := newBurstPlan(featureSchedule, b)
		for n := 0; n < 20000; {
			x, y := r.Int64N(75*sec)-5*sec, r.Int64N(75*sec)-5*sec
			x, y = min(x, y), max(x, y)
			if featureSchedule.Rate(y) < 50 || featureSchedule.Rate(y-1) < 50 {
				continue
			}
			n++
			e := bp.mass(x, y)
			base, frac, ok := bp.walk(x, 0, e, 0)
			if got := float64(base-y) + frac; !ok || math.Abs(got) > 1 {
				t.Fatalf("%+v: walking %.6f from %d lands at %d%+.4f, want %d", b, e, x, base, frac, y)
			}
		}
	}
}

// runCounts runs a from start to end (one seed) and adds the arrivals to counts[bin(t)].
func runCounts(t *testing.T, a Arrivals, seed uint64, start, end int64, counts []int, bin func(int64) int) int {
	t.Helper()
	r := newRand(seed)
	n, prev := 0, start
	for at := a.Next(r, start); at < end; at = a.Next(r, at) {
		if at < prev {
			t.Fatalf("arrival at %d before the previous one at %d", at, prev)
		}
		prev = at
		counts[bin(at)]++
		n++
	}
	return n
}

// TestBurstPoissonCounts is the burst's defining property, at 1000/s with a 100 ms burst
// at 10x every second (seed 31, 2000 periods, about 3.8e6 arrivals). Per period, the count
// inside the burst is Poisson with mean rate·factor·width = 1000, the count outside
// Poisson with mean rate·(every - width) = 900; so
//   - every one of the 4000 counts is within 5·sqrt(mean) of its mean (a correct process
//     fails one with probability 2.3e-3 overall);
//   - Σ (count - mean)²/mean, chi-square with 4000 df, lies between its 0.0005 and 0.9995
//     quantiles (≈ 3716 and 4296 by chi2Upper): below means too regular (BurstUniform
//     gives 0), above too noisy or a wrong mean;
//   - the totals inside (2e6) and outside (1.8e6) are within 5·sqrt of their means
//     (±0.35%, ±0.37%), and the overall count within 5·sqrt(I) of Integral(0, 2000 s).
func TestBurstPoissonCounts(t *testing.T) {
	const periods = 2000
	b := Burst{Every: sec, Width: 100 * ms, Factor: 10}
	s := Schedule{{0, 1000}}
	counts := make([]int, 2*periods) // 2p: inside period p's burst, 2p+1: outside
	total := runCounts(t, NewBurstPoisson(s, b), 31, 0, periods*sec, counts, func(at int64) int {
		if b.InBurst(at) {
			return int(2 * (at / sec))
		}
		return int(2*(at/sec) + 1)
	})
	means := [2]float64{1000 * 10 * 0.1, 1000 * 0.9}
	chi, sums := 0.0, [2]int{}
	for i, c := range counts {
		m := means[i%2]
		z := (float64(c) - m) / math.Sqrt(m)
		if math.Abs(z) > 5 {
			t.Errorf("period %d %s: %d arrivals, expected %.0f (z = %.1f)", i/2, []string{"burst", "gap"}[i%2], c, m, z)
		}
		chi += z * z
		sums[i%2] += c
	}
	lo, hi := chi2Upper(len(counts), -z9995), chi2Upper(len(counts), z9995)
	if chi < lo || chi > hi {
		t.Errorf("Σz² = %.1f outside [%.1f, %.1f] (%d df)", chi, lo, hi, len(counts))
	}
	for k, what := range []string{"inside bursts", "outside bursts"} {
		m := means[k] * periods
		if d := math.Abs(float64(sums[k]) - m); d > 5*math.Sqrt(m) {
			t.Errorf("%s: %d arrivals, expected %.0f", what, sums[k], m)
		}
	}
	want := b.Integral(s, 0, periods*sec)
	if want != 1900*periods {
		t.Errorf("Integral = %v, want %v", want, 1900*periods)
	}
	if d := math.Abs(float64(total) - want); d > 5*math.Sqrt(want) {
		t.Errorf("total %d arrivals, expected %.0f", total, want)
	}
	t.Logf("inside %d (expected %.0f), outside %d (expected %.0f), total %d; Σz² = %.1f in [%.1f, %.1f]",
		sums[0], means[0]*periods, sums[1], means[1]*periods, total, chi, lo, hi)
}

// TestBurstPoissonShape runs featureSchedule (ramps, steps to and from 0, zero stretches)
// under a 4x burst of 700 ms every 3 s shifted by 1.3 s, from -5 s to 70 s, 60 times
// (seeds 1000-1059, about 4.3e6 arrivals), and counts arrivals in 750 windows of 100 ms,
// whose edges include every burst edge. For each window, with I = 60·Integral of the
// window: |count - I| < 5·sqrt(I) when I > 0, no arrival at all when I = 0 (where the
// rate is 0), and Σ (count - I)²/I over the windows with I > 0 within the chi-square's
// 0.0005 and 0.9995 quantiles.
func TestBurstPoissonShape(t *testing.T) {
	const reps, w = 60, 100 * ms
	b := Burst{Every: 3 * sec, Width: 700 * ms, Offset: 1300 * ms, Factor: 4}
	start, end := -5*sec, 70*sec
	counts := make([]int, (end-start)/w)
	for i := range reps {
		runCounts(t, NewBurstPoisson(featureSchedule, b), uint64(1000+i), start, end, counts, func(at int64) int { return int((at - start) / w) })
	}
	chi, df := 0.0, 0
	for i, c := range counts {
		a := start + int64(i)*w
		exp := reps * b.Integral(featureSchedule, a, a+w)
		if exp == 0 {
			if c != 0 {
				t.Errorf("window at %d ms: %d arrivals where the rate is 0", a/ms, c)
			}
			continue
		}
		z := (float64(c) - exp) / math.Sqrt(exp)
		if math.Abs(z) > 5 {
			t.Errorf("window at %d ms: %d arrivals, expected %.1f (z = %.1f)", a/ms, c, exp, z)
		}
		chi += z * z
		df++
	}
	lo, hi := chi2Upper(df, -z9995), chi2Upper(df, z9995)
	if chi < lo || chi > hi {
		t.Errorf("Σz² = %.1f outside [%.1f, %.1f] (%d df)", chi, lo, hi, df)
	}
	t.Logf("Σz² = %.1f in [%.1f, %.1f] (%d df)", chi, lo, hi, df)
}

// TestBurstPoissonSkip exercises the skipping of whole periods: a rate far below one
// arrival per period (a ramp from 0 to 0.1/s over 1e6 s, then 0.1/s for 1e6 s) under a
// 50x burst of 1 ms every 10 ms, so each arrival skips thousands of periods, on a ramp
// (period masses in arithmetic progression) and on a constant. Seed 32, 2e8 periods,
// expected I = Integral(0, 2e6 s) ≈ 8.85e5 arrivals. Checks, for 20 windows of 1e5 s:
// |count - I_w| < 5·sqrt(I_w) and the chi-square as above; and that the arrivals inside
// bursts number F·J within 5·sqrt of it, where J = (I_F - I_1)/(F - 1) is the schedule's
// integral over the bursts (I_1 is Integral with Factor 1), that is 50/59 of them.
func TestBurstPoissonSkip(t *testing.T) {
	const w = 100_000 * sec
	b := Burst{Every: 10 * ms, Width: ms, Factor: 50}
	s := Schedule{{0, 0}, {1e6 * sec, 0.1}}
	counts := make([]int, 20)
	inside := 0
	r := newRand(32)
	a := NewBurstPoisson(s, b)
	for at := a.Next(r, 0); at < 20*w; at = a.Next(r, at) {
		counts[at/w]++
		if b.InBurst(at) {
			inside++
		}
	}
	chi := 0.0
	for i, c := range counts {
		exp := b.Integral(s, int64(i)*w, int64(i+1)*w)
		z := (float64(c) - exp) / math.Sqrt(exp)
		if math.Abs(z) > 5 {
			t.Errorf("window %d: %d arrivals, expected %.0f (z = %.1f)", i, c, exp, z)
		}
		chi += z * z
	}
	lo, hi := chi2Upper(len(counts), -z9995), chi2Upper(len(counts), z9995)
	if chi < lo || chi > hi {
		t.Errorf("Σz² = %.1f outside [%.1f, %.1f]", chi, lo, hi)
	}
	one := Burst{Every: b.Every, Width: b.Width, Factor: 1}
	expIn := b.Factor * (b.Integral(s, 0, 20*w) - one.Integral(s, 0, 20*w)) / (b.Factor - 1)
	if d := math.Abs(float64(inside) - expIn); d > 5*math.Sqrt(expIn) {
		t.Errorf("%d arrivals inside bursts, expected %.0f", inside, expIn)
	}
	t.Logf("%d inside bursts (expected %.0f); Σz² = %.1f in [%.1f, %.1f]", inside, expIn, chi, lo, hi)
}

// TestBurstUniformSkip: BurstUniform over TestBurstPoissonSkip's schedule and burst,
// where every arrival skips thousands of periods: the count in each of the 20 windows of
// 1e5 s, and in the bursts overall, is the integral rounded down or up (within 1 + 1e-6).
func TestBurstUniformSkip(t *testing.T) {
	const w = 100_000 * sec
	b := Burst{Every: 10 * ms, Width: ms, Factor: 50}
	s := Schedule{{0, 0}, {1e6 * sec, 0.1}}
	counts := make([]int, 20)
	a := NewBurstUniform(s, b)
	for at := a.Next(nil, 0); at < 20*w; at = a.Next(nil, at) {
		counts[at/w]++
	}
	for i, c := range counts {
		if want := b.Integral(s, int64(i)*w, int64(i+1)*w); math.Abs(float64(c)-want) > 1+1e-6 {
			t.Errorf("window %d: %d arrivals, integral %.4f", i, c, want)
		}
	}
}

// TestBurstUniformCounts: BurstUniform's count in any window [a, b) is Integral(a, b)
// rounded down or up, so |count - Integral| <= 1 (+1e-6 for float rounding): for the 750
// windows of 100 ms of featureSchedule under the shifted 4x burst, 3000 random windows
// (seed 33), and every burst and gap of a constant 1000/s under a 10x burst of 100 ms
// per second (1000 and 900 arrivals each, evenly spaced: 100 µs apart inside a burst, 1 ms
// outside, to within 1 ns).
func TestBurstUniformCounts(t *testing.T) {
	b := Burst{Every: 3 * sec, Width: 700 * ms, Offset: 1300 * ms, Factor: 4}
	var times []int64
	r := newRand(33)
	a := NewBurstUniform(featureSchedule, b)
	for at := a.Next(r, -5*sec); at < 70*sec; at = a.Next(r, at) {
		if n := len(times); n > 0 && at < times[n-1] {
			t.Fatalf("arrival %d at %d before the previous, %d", n, at, times[n-1])
		}
		if (at > 10*sec && at < 20*sec) || (at > 30*sec && at < 40*sec) {
			t.Fatalf("arrival at %d where the rate is 0", at)
		}
		times = append(times, at)
	}
	count := func(x, y int64) int {
		n := 0
		for _, v := range times {
			if v >= x && v < y {
				n++
			}
		}
		return n
	}
	check := func(x, y int64) {
		if c, want := count(x, y), b.Integral(featureSchedule, x, y); math.Abs(float64(c)-want) > 1+1e-6 {
			t.Errorf("[%d, %d): %d arrivals, integral %.4f", x, y, c, want)
		}
	}
	for x := -5 * sec; x < 70*sec; x += 100 * ms {
		check(x, x+100*ms)
	}
	for range 3000 {
		x, y := r.Int64N(75*sec)-5*sec, r.Int64N(75*sec)-5*sec
		check(min(x, y), max(x, y))
	}

	c := Burst{Every: sec, Width: 100 * ms, Factor: 10}
	u := NewBurstUniform(Schedule{{0, 1000}}, c)
	prev := int64(-1)
	n := 0
	for at := u.Next(nil, 0); at < 100*sec; at = u.Next(nil, at) {
		if prev >= 0 {
			gap := at - prev
			want := ms
			if c.InBurst(prev) && c.InBurst(at) {
				want = 100_000
			}
			if (c.InBurst(prev) == c.InBurst(at)) && (gap < want-1 || gap > want+1) {
				t.Fatalf("gap %d ns from %d, want %d", gap, prev, want)
			}
		}
		prev = at
		n++
	}
	if n != 190_000 {
		t.Errorf("%d arrivals in 100 s, want 190000", n)
	}
}

// TestBurstUniformFactorOne: with Factor 1 BurstUniform walks the same levels as
// UniformArrivals, so both give the same times (within 1 ns of float rounding) over
// featureSchedule, from a fresh start at -5 s, at 0 and at 15 s (inside a zero stretch).
func TestBurstUniformFactorOne(t *testing.T) {
	for _, start := range []int64{-5 * sec, 0, 15 * sec} {
		u := NewUniformArrivals(featureSchedule)
		v := NewBurstUniform(featureSchedule, Burst{Every: 700 * ms, Width: 300 * ms, Offset: 5, Factor: 1})
		x, y := u.Next(nil, start), v.Next(nil, start)
		for n := 0; x < 70*sec; n++ {
			if d := x - y; d < -1 || d > 1 {
				t.Fatalf("start %d, arrival %d: UniformArrivals %d, BurstUniform %d", start, n, x, y)
			}
			x, y = u.Next(nil, x), v.Next(nil, y)
		}
	}
}

// TestBurstEnds: when the rate falls to 0 for good, both processes return Never once the
// remaining mass is used up, and keep returning it.
func TestBurstEnds(t *testing.T) {
	s := Schedule{{0, 100}, {sec, 0}}
	b := Burst{Every: 100 * ms, Width: 10 * ms, Factor: 5}
	for _, a := range []Arrivals{NewBurstPoisson(s, b), NewBurstUniform(s, b)} {
		r := newRand(34)
		n := 0
		at := a.Next(r, 0)
		for ; at != Never; at = a.Next(r, at) {
			if at > sec {
				t.Fatalf("%T: arrival at %d after the rate fell to 0", a, at)
			}
			n++
		}
		if a.Next(r, 2*sec) != Never || a.Next(r, Never) != Never {
			t.Errorf("%T: arrivals after the end", a)
		}
		if n == 0 || n > 200 {
			t.Errorf("%T: %d arrivals, expected about %.0f", a, n, b.Integral(s, 0, sec))
		}
	}
}

// TestBurstDeterministic: one seed gives one sequence; another seed another.
func TestBurstDeterministic(t *testing.T) {
	b := Burst{Every: sec, Width: 100 * ms, Factor: 10}
	seq := func(seed uint64) []int64 {
		a, r := NewBurstPoisson(featureSchedule, b), newRand(seed)
		var out []int64
		for at := a.Next(r, 0); at < 5*sec; at = a.Next(r, at) {
			out = append(out, at)
		}
		return out
	}
	x, y, z := seq(35), seq(35), seq(36)
	if len(x) == 0 || len(x) != len(y) {
		t.Fatalf("lengths %d, %d", len(x), len(y))
	}
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("arrival %d: %d then %d with the same seed", i, x[i], y[i])
		}
	}
	same := len(x) == len(z)
	for i := 0; same && i < len(x); i++ {
		same = x[i] == z[i]
	}
	if same {
		t.Error("seeds 35 and 36 give the same arrivals")
	}
}

func TestBurstNextDoesNotAllocate(t *testing.T) {
	b := Burst{Every: sec, Width: 100 * ms, Factor: 10}
	r := newRand(37)
	for _, a := range []Arrivals{NewBurstPoisson(featureSchedule, b), NewBurstUniform(featureSchedule, b)} {
		at := a.Next(r, 0)
		if n := testing.AllocsPerRun(10_000, func() { at = a.Next(r, at) }); n != 0 {
			t.Errorf("%T.Next: %v allocations per call", a, n)
		}
		if n := testing.AllocsPerRun(100, func() { a.Next(r, 3*sec) }); n != 0 {
			t.Errorf("%T.Next from a fresh start: %v allocations per call", a, n)
		}
	}
}

func BenchmarkBurstPoisson(b *testing.B) {
	a := NewBurstPoisson(Schedule{{0, 1e5}}, Burst{Every: 60 * sec, Width: 2 * sec, Factor: 10})
	r := newRand(1)
	at := int64(0)
	for b.Loop() {
		at = a.Next(r, at)
	}
}

// TestBurstExtremes runs both processes at the edges of what a scenario allows: a 2 ns
// period (every arrival crosses thousands of bursts), a 10000-day period whose burst
// starts 0.25 s before t = 0, and a factor of 1e6 (about 5e5 arrivals/s from 1/s); each
// for 1 s of simulated time from a fresh start (seed 39). The
// arrivals must not go backwards, and the count must be within 5·sqrt(I) + 1 of the
// integral I (Poisson noise; uniform is within 1).
func TestBurstExtremes(t *testing.T) {
	for _, c := range []struct {
		s Schedule
		b Burst
	}{
		{Schedule{{0, 1e4}}, Burst{Every: 2, Width: 1, Factor: 3}},
		{Schedule{{0, 1}}, Burst{Every: 2, Width: 1, Offset: 1, Factor: 1e6}},
		{Schedule{{0, 10}, {sec, 1e3}}, Burst{Every: 10_000 * 24 * 3600 * sec, Width: sec / 2, Offset: 10_000*24*3600*sec - sec/4, Factor: 1e3}},
		{Schedule{{0, 0.5}, {sec, 0}}, Burst{Every: 3, Width: 2, Factor: 1e6}},
	} {
		want := c.b.Integral(c.s, 0, sec)
		for _, a := range []Arrivals{NewBurstPoisson(c.s, c.b), NewBurstUniform(c.s, c.b)} {
			r := newRand(39)
			n, prev := 0, int64(0)
			for at := a.Next(r, 0); at < sec; at = a.Next(r, at) {
				if at < prev {
					t.Fatalf("%T %+v: arrival at %d after one at %d", a, c.b, at, prev)
				}
				prev = at
				n++
			}
			if d := math.Abs(float64(n) - want); d > 5*math.Sqrt(want)+1 {
				t.Errorf("%T %+v: %d arrivals in 1 s, integral %.1f", a, c.b, n, want)
			}
		}
	}
}
