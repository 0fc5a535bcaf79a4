package workload

import (
	"math"
	"math/rand/v2"
)

// Poisson is a non-homogeneous Poisson process whose intensity is a Schedule, simulated
// exactly by inversion of the cumulative intensity Λ (Çinlar's method; see e.g. Lewis &
// Shedler, "Simulation of nonhomogeneous Poisson processes by thinning", Naval Res.
// Logistics Quarterly 26(3), 1979, section 2, or Devroye, "Non-Uniform Random Variate
// Generation", 1986, ch. VI.1): from the current position t, draw E ~ Exp(1) and return
// the t' with Λ(t') - Λ(t) = E. The intensity is piecewise linear, so Λ is piecewise
// quadratic and t' is found in closed form: walk the segments from t subtracting each
// one's mass from E until it falls inside one, then solve r·τ + k·τ²/2 = E there
// (solveLinear). Segments of rate 0 have no mass and are crossed; if the rate is 0 from
// some point on and E is not used up before it, the process has ended and Next returns
// Never.
//
// Arrival times are rounded up to whole nanoseconds, so Next(r, t) >= t. The exact
// (fractional) position of the last arrival is kept: when Next is called with the time it
// last returned, the process continues from the exact position, so rounding does not
// accumulate and the process is exact at any rate (at rates near 1e9/s, several arrivals
// can share a nanosecond and Next can return t). Called with any other t, the process
// starts afresh at t (which is exact too, the process being memoryless).
//
// Cost: O(1) per arrival plus the segments crossed; no allocation. A Poisson is stateful:
// use one per stream.
type Poisson struct {
	p        plan
	started  bool
	lastOut  int64   // the last time returned
	lastBase int64   // the exact position of the last arrival: lastBase + lastFrac
	lastFrac float64 // in [0, 1)
}

// NewPoisson returns a Poisson process following s. The schedule is copied. It panics if
// s is not valid (see Schedule.Check); callers validate schedules beforehand.
func NewPoisson(s Schedule) *Poisson { return &Poisson{p: newPlan(s)} }

// Next returns the first arrival after t (see Poisson), or Never.
func (a *Poisson) Next(r *rand.Rand, t int64) int64 {
	if t == Never {
		return Never
	}
	base, frac := t, 0.0
	if a.started && t == a.lastOut {
		base, frac = a.lastBase, a.lastFrac
	}
	e := r.ExpFloat64()
	p := &a.p
	s := p.s
	if len(s) == 1 && base >= s[0].At && s[0].Rate > 0 {
		// A constant rate, the common case: the last segment's step below, without the
		// segment lookup.
		nb, nf, ok := advance(base, frac, e*1e9/s[0].Rate)
		return a.emit(nb, nf, ok)
	}
	last := len(s) - 1
	for i := p.segment(base); ; i++ {
		var rate, slope, rEnd float64
		var end int64
		switch {
		case i < 0:
			rate, rEnd, end = s[0].Rate, s[0].Rate, s[0].At
		case i == last:
			rate = s[i].Rate
			if rate <= 0 {
				return a.end()
			}
			nb, nf, ok := advance(base, frac, e*1e9/rate)
			return a.emit(nb, nf, ok)
		default:
			slope, rEnd, end = p.slope[i], s[i+1].Rate, s[i+1].At
			rate = math.Max(0, s[i].Rate+slope*((float64(base-s[i].At)+frac)/1e9))
		}
		dur := (float64(end-base) - frac) / 1e9 // seconds to the segment's end
		mass := (rate + rEnd) / 2 * dur
		if e <= mass {
			tau := min(solveLinear(rate, slope, e), dur)
			nb, nf, ok := advance(base, frac, tau*1e9)
			return a.emit(nb, nf, ok)
		}
		e -= mass
		base, frac = end, 0
	}
}

func (a *Poisson) emit(base int64, frac float64, ok bool) int64 {
	if !ok {
		return a.end()
	}
	out := ceilPos(base, frac)
	a.started, a.lastOut, a.lastBase, a.lastFrac = true, out, base, frac
	return out
}

func (a *Poisson) end() int64 {
	a.started = false
	return Never
}
