package workload

import (
	"math"
	"math/rand/v2"
)

// UniformArrivals is the deterministic counterpart of Poisson: the k-th arrival is at
// Λ^-1(k), where Λ(t) is the integral of the schedule's rate from its first point to t
// and k runs over the integers, so arrivals are one unit of integrated rate apart (at a
// constant rate, exactly 1/rate apart) and the number of arrivals in any window [a, b)
// is the schedule's Integral(a, b) rounded down or up. Λ^-1(k) is the first time at
// which Λ reaches k; it is computed from precomputed Λ at the schedule's points, so there
// is no drift however many arrivals are generated. The random source is not used.
//
// Times are rounded up to whole nanoseconds, so Next(r, t) >= t. Called with the time it
// last returned, Next returns the next arrival, k+1 (at the same nanosecond if the rate
// exceeds 1e9/s); called with any other t (a fresh start), it returns the first arrival at
// or after t, Λ^-1(ceil(Λ(t))). When the rate is 0 from some point on and no arrival
// remains, Next returns Never.
//
// UniformArrivals is stateful: use one per stream. Next does not allocate.
type UniformArrivals struct {
	p       plan
	started bool
	lastOut int64
	k       float64 // the level of the last arrival (an integer; exact below 2^53)
}

// NewUniformArrivals returns a deterministic arrival process following s. The schedule
// is copied. It panics if s is not valid (see Schedule.Check).
func NewUniformArrivals(s Schedule) *UniformArrivals { return &UniformArrivals{p: newPlan(s)} }

// Next returns the first arrival at or after t (see UniformArrivals), or Never.
func (a *UniformArrivals) Next(_ *rand.Rand, t int64) int64 {
	if t == Never {
		return Never
	}
	var k float64
	var out int64
	var ok bool
	if a.started && t == a.lastOut {
		k = a.k + 1
		out, ok = a.inverse(k)
	} else {
		k = math.Ceil(a.p.cumAt(t))
		out, ok = a.inverse(k)
		if ok && out < t {
			// Λ(t) = k exactly but Λ reached k before t (Λ is flat there): arrival k
			// is in the past, the first one at or after t is k+1.
			k++
			out, ok = a.inverse(k)
		}
	}
	if !ok {
		a.started = false
		return Never
	}
	out = max(out, t) // only by rounding
	a.started, a.lastOut, a.k = true, out, k
	return out
}

// inverse returns ceil(Λ^-1(level)), the first time (in whole ns) at which Λ reaches
// level, or ok = false if Λ never reaches it. A level Λ reaches at -∞ (level <= 0 with a
// first rate of 0) returns math.MinInt64.
func (a *UniformArrivals) inverse(level float64) (int64, bool) {
	p := &a.p
	s := p.s
	last := len(s) - 1
	if level <= 0 {
		if s[0].Rate <= 0 {
			return -1 << 63, true
		}
		nb, nf, ok := advance(s[0].At, 0, level*1e9/s[0].Rate) // <= 0
		return ceilPos(nb, nf), ok
	}
	// j is the first point with cum[j] >= level; cum[0] = 0 < level, so j >= 1.
	lo, hi := 1, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.cum[m] >= level {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == len(s) { // beyond the last point: constant rate
		if s[last].Rate <= 0 {
			return 0, false
		}
		nb, nf, ok := advance(s[last].At, 0, (level-p.cum[last])*1e9/s[last].Rate)
		return ceilPos(nb, nf), ok
	}
	i := lo - 1 // cum[i] < level <= cum[i+1]: segment i has mass, so length > 0
	dur := float64(s[i+1].At-s[i].At) / 1e9
	tau := min(solveLinear(s[i].Rate, p.slope[i], level-p.cum[i]), dur)
	nb, nf, _ := advance(s[i].At, 0, tau*1e9)
	return min(ceilPos(nb, nf), s[i+1].At), true
}
