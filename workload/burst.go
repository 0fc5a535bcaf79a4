package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Burst multiplies a schedule's rate by Factor during the first Width of every period of
// length Every. Periods start at Offset + k·Every for every integer k (negative times
// included), so with Offset = 0 a burst begins at t = 0, Every, 2·Every, ...: devices that
// flush at the top of every minute are Burst{Every: 1 min, Width: 2 s, Factor: 10}. The
// schedule's rate is the rate outside bursts; the mean rate over a period is
// rate·(Factor·Width + Every - Width)/Every.
//
// The modulated rate λ(t)·m(t), with m = Factor inside a burst and 1 outside, is again
// piecewise linear (with steps at the burst edges), so the processes below are exact in
// the same sense as Poisson and UniformArrivals: BurstPoisson is a non-homogeneous Poisson
// process with that intensity and BurstUniform puts its k-th arrival at the first time the
// integrated intensity reaches k.
type Burst struct {
	Every  int64   // the period in ns: > 0
	Width  int64   // the length of the burst at the start of each period, ns: 0 < Width < Every
	Offset int64   // the start of a period, ns: 0 <= Offset < Every
	Factor float64 // the rate multiplier inside a burst: finite, >= 1
}

// Check returns an error describing why b is not a valid burst, or nil.
func (b Burst) Check() error {
	switch {
	case b.Every <= 0:
		return fmt.Errorf("workload: burst period %d ns is not positive", b.Every)
	case b.Width <= 0 || b.Width >= b.Every:
		return fmt.Errorf("workload: burst width %d ns is not in (0, %d)", b.Width, b.Every)
	case b.Offset < 0 || b.Offset >= b.Every:
		return fmt.Errorf("workload: burst offset %d ns is not in [0, %d)", b.Offset, b.Every)
	case !(b.Factor >= 1) || math.IsInf(b.Factor, 1):
		return fmt.Errorf("workload: burst factor %v is not finite and >= 1", b.Factor)
	}
	return nil
}

// phase returns t's position in its period, in [0, Every). It does not overflow for any t
// as long as Every <= 2^62 (about 146 years).
func (b Burst) phase(t int64) int64 {
	p := t%b.Every - b.Offset // in (-2·Every, Every)
	if p < 0 {
		p += b.Every
		if p < 0 {
			p += b.Every
		}
	}
	return p
}

// InBurst reports whether t falls inside a burst.
func (b Burst) InBurst(t int64) bool { return b.phase(t) < b.Width }

// Multiplier returns the rate multiplier at time t: Factor inside a burst, 1 outside.
func (b Burst) Multiplier(t int64) float64 {
	if b.InBurst(t) {
		return b.Factor
	}
	return 1
}

// MeanFactor is the ratio of the mean rate over whole periods to the schedule's rate:
// (Factor·Width + Every - Width) / Every.
func (b Burst) MeanFactor() float64 {
	return (b.Factor*float64(b.Width) + float64(b.Every-b.Width)) / float64(b.Every)
}

// Integral returns the integral over [a, c) of s's rate multiplied by b: the expected
// number of arrivals of a BurstPoisson in that interval (-Integral(c, a) if a > c). It is
// exact up to floating-point rounding and costs O(schedule points crossed), however many
// bursts [a, c) spans. s and b must be valid (it panics otherwise).
func (b Burst) Integral(s Schedule, a, c int64) float64 {
	bp := newBurstPlan(s, b)
	return bp.mass(a, c)
}

// burstPlan is a plan with a burst.
type burstPlan struct {
	plan
	b Burst
}

func newBurstPlan(s Schedule, b Burst) burstPlan {
	if err := b.Check(); err != nil {
		panic(err)
	}
	return burstPlan{plan: newPlan(s), b: b}
}

// lin is one piece of the schedule as a linear rate r(u) = r0 + k·(u - u0)/1e9 on
// [.., hi), with rHi the (exact) rate at hi.
type lin struct {
	u0  int64
	r0  float64
	k   float64 // (events/s)/s
	hi  int64   // the piece's end: Never for the constant piece after the last point
	rHi float64
}

// lin returns segment i (-1: the constant piece before the first point) as a lin.
func (p *plan) lin(i int) lin {
	s := p.s
	switch {
	case i < 0:
		return lin{u0: s[0].At, r0: s[0].Rate, hi: s[0].At, rHi: s[0].Rate}
	case i == len(s)-1:
		return lin{u0: s[i].At, r0: s[i].Rate, hi: Never, rHi: s[i].Rate}
	}
	return lin{u0: s[i].At, r0: s[i].Rate, k: p.slope[i], hi: s[i+1].At, rHi: s[i+1].Rate}
}

// at returns the rate at u + frac (frac in [0, 1) ns), never negative.
func (l *lin) at(u int64, frac float64) float64 {
	if u == l.hi && frac == 0 {
		return l.rHi
	}
	return math.Max(0, l.r0+l.k*((float64(u-l.u0)+frac)/1e9))
}

// upTo returns min(hi, u + d) for d >= 0 without overflow.
func upTo(u, d, hi int64) int64 {
	if hi-u <= d {
		return hi
	}
	return u + d
}

// mass returns the integral of the modulated rate over [a, c) (negated if a > c).
func (bp *burstPlan) mass(a, c int64) float64 {
	if a > c {
		return -bp.mass(c, a)
	}
	if a == c {
		return 0
	}
	sum := 0.0
	for i, j := bp.s.segment(a), bp.s.segment(c-1); i <= j; i++ {
		l := bp.lin(i)
		lo, hi := a, min(c, l.hi)
		if i >= 0 {
			lo = max(a, bp.s[i].At)
		}
		if lo < hi {
			sum += bp.pieceMass(&l, lo, hi)
		}
	}
	return sum
}

// pieceMass returns the integral of the modulated rate over [lo, hi), lo < hi, inside
// the piece l: the plain integral plus (Factor - 1) times the integral over the parts of
// [lo, hi) inside bursts. Those parts are the first and last period's bursts, clipped,
// and the n whole bursts between them, whose integrals sum to n·Width·r(mean of their
// midpoints) since r is linear; so the cost does not depend on the number of bursts.
func (bp *burstPlan) pieceMass(l *lin, lo, hi int64) float64 {
	b := bp.b
	seg := func(x, y int64) float64 { return (l.at(x, 0) + l.at(y, 0)) / 2 * (float64(y-x) / 1e9) }
	plain := seg(lo, hi)
	if b.Factor == 1 {
		return plain
	}
	p0 := lo - b.phase(lo)          // the start of lo's period
	last := (hi - 1 - p0) / b.Every // the period of hi - 1, counted from p0's
	in := 0.0
	if x, y := max(lo, p0), upTo(p0, b.Width, hi); x < y {
		in += seg(x, y)
	}
	if last >= 1 {
		pl := p0 + last*b.Every
		if y := upTo(pl, b.Width, hi); pl < y {
			in += seg(pl, y)
		}
	}
	if n := last - 1; n >= 1 {
		// The whole bursts of periods 1..last-1: the mean of their midpoints is
		// p0 + last·Every/2 + Width/2.
		mid := float64(p0-l.u0) + float64(last)*(float64(b.Every)/2) + float64(b.Width)/2
		in += float64(n) * (float64(b.Width) / 1e9) * (l.r0 + l.k*(mid/1e9))
	}
	return plain + (b.Factor-1)*in
}

// walk returns the position at which the integral of the modulated rate from base + frac
// reaches e (>= 0), or ok = false if it never does (before Never). A piece that falls
// short of e by at most tol is taken to reach it at its end: BurstUniform walks whole
// units, and a level that is reached exactly at a piece's end, where the rate may drop to
// 0, must not be pushed past the zero stretch by a float64 residue of 1e-13. It walks the pieces
// where both the schedule and the burst multiplier are linear (a burst, the gap after it)
// and solves the last one in closed form (solveLinear), as Poisson does; whole periods
// that e covers are skipped in one step (skip), so a call crosses O(1) pieces per
// schedule segment whatever the rate.
func (bp *burstPlan) walk(base int64, frac, e, tol float64) (int64, float64, bool) {
	b := bp.b
	last := len(bp.s) - 1
	for i := bp.segment(base); ; i++ {
		l := bp.lin(i)
		if i == last && l.r0 <= 0 {
			return 0, 0, false
		}
		for base < l.hi {
			ph := b.phase(base)
			left, mult := b.Every-ph, 1.0
			if ph < b.Width {
				left, mult = b.Width-ph, b.Factor
			}
			end := upTo(base, left, l.hi)
			rate, rEnd := l.at(base, frac), l.at(end, 0)
			dur := (float64(end-base) - frac) / 1e9
			mass := mult * (rate + rEnd) / 2 * dur
			if e <= mass+tol {
				tau := min(solveLinear(mult*rate, mult*l.k, e), dur)
				bp.hint = i
				return advance(base, frac, tau*1e9)
			}
			e -= mass
			base, frac = end, 0
			if base == Never {
				return 0, 0, false
			}
			if base < l.hi && b.phase(base) == 0 {
				n, m := bp.skip(&l, base, e)
				base += n * b.Every
				e -= m
			}
		}
	}
}

// skip returns the largest n of whole periods from p (a period start inside l) that end
// by l.hi and whose mass S(n) is less than e, and S(n). The mass of period j is linear in
// j, M_j = A + B·j (the rate is linear), so S(n) = n·A + B·n(n-1)/2 and n comes from the
// quadratic's root, checked against S itself.
func (bp *burstPlan) skip(l *lin, p int64, e float64) (int64, float64) {
	b := bp.b
	most := (l.hi - p) / b.Every
	if most <= 0 {
		return 0, 0
	}
	t, w := float64(b.Every)/1e9, float64(b.Width)/1e9
	rp := l.r0 + l.k*(float64(p-l.u0)/1e9)
	// Each part's integral is its length times the rate at its midpoint.
	A := b.Factor*w*(rp+l.k*w/2) + (t-w)*(rp+l.k*(t+w)/2)
	B := (b.Factor*w + t - w) * l.k * t
	S := func(n int64) float64 { x := float64(n); return x*A + B*x*(x-1)/2 }
	var x float64 // S(x) = e
	switch {
	case B == 0 && A <= 0:
		x = math.Inf(1)
	case B == 0:
		x = e / A
	default:
		b1 := A - B/2
		if d := b1*b1 + 2*B*e; d < 0 {
			x = math.Inf(1) // a falling rate that never accumulates e
		} else {
			x = 2 * e / (b1 + math.Sqrt(d))
		}
	}
	var n int64
	switch c := math.Ceil(x) - 1; {
	case !(c < float64(most)): // also NaN
		n = most
	case c > 0:
		n = int64(c)
	}
	for k := 0; k < 64 && n > 0 && S(n) >= e; k++ {
		n--
	}
	for k := 0; k < 64 && n < most && S(n+1) < e; k++ {
		n++
	}
	return n, S(n)
}

// BurstPoisson is a non-homogeneous Poisson process whose intensity is a Schedule
// multiplied by a Burst, simulated exactly by inversion of the cumulative intensity, as
// Poisson is (Çinlar's method): from the exact position of the last arrival, draw
// E ~ Exp(1) and return the first t' at which the integrated intensity has grown by E. The
// integral is walked piece by piece, a piece being a stretch where the schedule is linear
// and the multiplier constant (a burst or the gap after it), and solved in closed form
// in the piece where E runs out; the whole periods in between are skipped in one step
// (their masses form an arithmetic sequence). Since the arrival times are the images of
// the points of a unit-rate Poisson process under the inverse of the cumulative intensity,
// the process is exact, not an approximation (no thinning, no time step), and uses one
// random number per arrival, like Poisson.
//
// Times are rounded up to whole nanoseconds and the exact position is kept, with the same
// rules as Poisson: Next(r, t) >= t; called with the time it last returned it continues
// from the exact position, with any other t it starts afresh at t. Burst edges fall on
// whole nanoseconds, so no arrival is ever attributed to the wrong side of an edge.
//
// Cost: O(1) per arrival plus the schedule segments crossed; no allocation. Stateful: use
// one per stream.
type BurstPoisson struct {
	bp       burstPlan
	started  bool
	lastOut  int64
	lastBase int64
	lastFrac float64
}

// NewBurstPoisson returns a Poisson process following s modulated by b. The schedule is
// copied. It panics if s or b is not valid (see Schedule.Check and Burst.Check).
func NewBurstPoisson(s Schedule, b Burst) *BurstPoisson {
	return &BurstPoisson{bp: newBurstPlan(s, b)}
}

// Next returns the first arrival after t (see BurstPoisson), or Never.
func (a *BurstPoisson) Next(r *rand.Rand, t int64) int64 {
	if t == Never {
		return Never
	}
	base, frac := t, 0.0
	if a.started && t == a.lastOut {
		base, frac = a.lastBase, a.lastFrac
	}
	nb, nf, ok := a.bp.walk(base, frac, r.ExpFloat64(), 0)
	if !ok {
		a.started = false
		return Never
	}
	out := ceilPos(nb, nf)
	a.started, a.lastOut, a.lastBase, a.lastFrac = true, out, nb, nf
	return out
}

// BurstUniform is the deterministic counterpart of BurstPoisson, as UniformArrivals is of
// Poisson: its k-th arrival is at the first time Λ(t) reaches k, where Λ is the integral
// of the modulated rate from the schedule's first point. So arrivals are evenly spaced at
// Factor times the rate inside a burst and at the rate outside it, a gap that straddles a
// burst edge is split between both sides in proportion, and the number of arrivals in any
// window [a, b) is Burst.Integral(a, b) rounded down or up.
//
// Called with the time it last returned, Next walks one unit of Λ on from the exact
// position of the last arrival (the position is kept unrounded, so there is no drift
// beyond float64 rounding: about 1e-16 of a gap per arrival). Called with any other t (a
// fresh start) it returns the first arrival at or after t: it computes Λ(t) (O(schedule
// points), whatever the number of bursts) and walks to the next whole level. The random
// source is not used. Stateful: use one per stream. Next does not allocate.
type BurstUniform struct {
	bp       burstPlan
	started  bool
	lastOut  int64
	lastBase int64
	lastFrac float64
}

// levelTol is how far (in units of integrated rate) a computed level may be from a whole
// one and still count as it: far above the float64 rounding of the sums involved (about
// 1e-13 at the levels of a run), and it moves an arrival by at most 1e-9 of the gap
// between two arrivals.
const levelTol = 1e-9

// NewBurstUniform returns a deterministic arrival process following s modulated by b.
// The schedule is copied. It panics if s or b is not valid.
func NewBurstUniform(s Schedule, b Burst) *BurstUniform {
	return &BurstUniform{bp: newBurstPlan(s, b)}
}

// Next returns the first arrival at or after t (see BurstUniform), or Never.
func (a *BurstUniform) Next(_ *rand.Rand, t int64) int64 {
	if t == Never {
		return Never
	}
	var nb int64
	var nf float64
	var ok bool
	if a.started && t == a.lastOut {
		nb, nf, ok = a.bp.walk(a.lastBase, a.lastFrac, 1, levelTol)
	} else {
		level := a.bp.mass(a.bp.s[0].At, t)
		if f := level - math.Floor(level); f > 0 && f <= levelTol+math.Abs(level)*1e-14 {
			level = math.Floor(level) // a whole level but for float64 rounding
		}
		e := math.Ceil(level) - level
		if e == 0 && t > math.MinInt64 && a.bp.s.Rate(t-1) <= 0 {
			// Λ(t) is a whole level, but Λ is flat before t, so it reached that level
			// earlier: that arrival is in the past, the first one at or after t is the next.
			e = 1
		}
		nb, nf, ok = a.bp.walk(t, 0, e, levelTol)
	}
	if !ok {
		a.started = false
		return Never
	}
	out := max(ceilPos(nb, nf), t)
	a.started, a.lastOut, a.lastBase, a.lastFrac = true, out, nb, nf
	return out
}

var (
	_ Arrivals = (*BurstPoisson)(nil)
	_ Arrivals = (*BurstUniform)(nil)
)
