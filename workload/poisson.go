package workload

import (
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
	p plan
	// The schedule once more, laid out for Next: segs[i] is segment i (i < last) with what
	// a step inside it reads, in one place; from lastAt on the rate is lastRate.
	segs     []poissonSeg
	lastAt   int64
	lastRate float64
	started  bool
	lastOut  int64   // the last time returned
	lastBase int64   // the exact position of the last arrival: lastBase + lastFrac
	lastFrac float64 // in [0, 1)
}

// NewPoisson returns a Poisson process following s. The schedule is copied. It panics if
// s is not valid (see Schedule.Check); callers validate schedules beforehand.
func NewPoisson(s Schedule) *Poisson {
	a := &Poisson{p: newPlan(s)}
	s = a.p.s
	last := len(s) - 1
	a.lastAt, a.lastRate = s[last].At, s[last].Rate
	a.segs = make([]poissonSeg, last)
	for i := range a.segs {
		a.segs[i] = poissonSeg{at: s[i].At, end: s[i+1].At, rate: s[i].Rate, slope: a.p.slope[i], rEnd: s[i+1].Rate}
	}
	return a
}

// poissonSeg is segment i of a Poisson's schedule: from at to end the rate goes from
// rate to rEnd with the given slope (the plan's, in (events/s)/s).
type poissonSeg struct {
	at, end           int64
	rate, slope, rEnd float64
}

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
	if base >= a.lastAt {
		// From the last point on the rate is constant: the common case of a constant rate,
		// and of a schedule's last piece, without a segment lookup.
		if a.lastRate <= 0 {
			return a.end()
		}
		nb, nf, ok := advance(base, frac, e*1e9/a.lastRate)
		return a.emit(nb, nf, ok)
	}
	// Walk the segments from base's, subtracting each one's mass from e until it falls
	// inside one. The arithmetic is the plan's, operation for operation, so that the
	// arrival times do not change with the layout.
	for i := a.p.segment(base); ; i++ {
		var rate, slope, rEnd float64
		var end int64
		switch {
		case i < 0:
			rate, rEnd, end = a.p.s[0].Rate, a.p.s[0].Rate, a.p.s[0].At
		case i >= len(a.segs): // the last point, reached by crossing segments
			if a.lastRate <= 0 {
				return a.end()
			}
			nb, nf, ok := advance(base, frac, e*1e9/a.lastRate)
			return a.emit(nb, nf, ok)
		default:
			g := &a.segs[i]
			slope, rEnd, end = g.slope, g.rEnd, g.end
			// The builtin max is math.Max's equal (NaN and signed zeros alike), inlined.
			rate = max(0, g.rate+slope*((float64(base-g.at)+frac)/1e9))
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
