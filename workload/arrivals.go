package workload

import "math"

// plan is a Schedule prepared for the arrival processes: its own copy of the points, the
// slope of each segment and the cumulative intensity at each point.
type plan struct {
	s     Schedule
	slope []float64 // segment i's slope in (events/s)/s; 0 for a zero-length segment
	cum   []float64 // Λ(s[i].At) = integral of the rate from s[0].At, in events
	hint  int       // the segment last looked up, tried before a binary search
}

// newPlan copies s and precomputes slopes and cumulative intensities. It panics if s is
// not valid (see Schedule.Check).
func newPlan(s Schedule) plan {
	if err := s.Check(); err != nil {
		panic(err)
	}
	p := plan{s: append(Schedule(nil), s...), slope: make([]float64, len(s)), cum: make([]float64, len(s)), hint: -1}
	for i := 0; i+1 < len(s); i++ {
		a, b := s[i], s[i+1]
		if b.At > a.At {
			p.slope[i] = (b.Rate - a.Rate) / (float64(b.At-a.At) / 1e9)
		}
		p.cum[i+1] = p.cum[i] + (a.Rate+b.Rate)/2*(float64(b.At-a.At)/1e9)
	}
	return p
}

// segment is Schedule.segment, trying the segment of the previous call first (arrival
// processes move forward through the schedule, so it is nearly always right).
func (p *plan) segment(t int64) int {
	if i := p.hint; i >= 0 && p.s[i].At <= t && (i == len(p.s)-1 || t < p.s[i+1].At) {
		return i
	}
	i := p.s.segment(t)
	p.hint = i
	return i
}

// cumAt returns Λ(t), the integral of the rate from s[0].At to t (negative before it).
func (p *plan) cumAt(t int64) float64 {
	i := p.segment(t)
	switch {
	case i < 0:
		return -p.s[0].Rate * (float64(p.s[0].At-t) / 1e9)
	case i == len(p.s)-1:
		return p.cum[i] + p.s[i].Rate*(float64(t-p.s[i].At)/1e9)
	}
	return p.cum[i] + (p.s[i].Rate+p.s.rateIn(i, t))/2*(float64(t-p.s[i].At)/1e9)
}

// solveLinear returns the τ >= 0 (seconds) with r·τ + k·τ²/2 = m, for a rate starting at
// r >= 0 with slope k, and m >= 0 no more than the mass of the rate before it reaches 0.
// It uses the form 2m / (r + sqrt(r² + 2km)) of the quadratic's root, which has no
// cancellation for either sign of k (the textbook (-r + sqrt(r² + 2km))/k loses all
// accuracy when k·m is small against r²) and covers k = 0.
func solveLinear(r, k, m float64) float64 {
	if m <= 0 {
		return 0
	}
	d := r*r + 2*k*m
	if d < 0 { // rounding: m was the whole mass down to a rate of 0
		d = 0
	}
	return 2 * m / (r + math.Sqrt(d))
}

// advance returns the position base + frac + ns nanoseconds, as whole nanoseconds and a
// fraction in [0, 1), or ok = false if it is not before Never. A fraction within rounding
// error of a whole nanosecond (snapTol) is snapped to it, so that arrivals that are
// mathematically at a whole nanosecond (k ms at 1000/s, say) are not pushed one
// nanosecond later by the rounding up.
func advance(base int64, frac, ns float64) (nb int64, nf float64, ok bool) {
	ns += frac
	if ns >= float64(Never)-float64(base) { // also catches +Inf; no int64 overflow
		return 0, 0, false
	}
	w := math.Floor(ns)
	f := ns - w
	if f >= 1e-3 && f <= 1-1e-3 {
		// Nearly every fraction: the tolerance below is never above 1e-3, so neither
		// snap applies, and the common case skips its arithmetic.
		return base + int64(w), f, true
	}
	// ns carries a relative error of a few float64 epsilons (2.2e-16) from the
	// arithmetic that produced it; below 1e-3 ns the snap is harmless either way.
	tol := min(1e-3, 1e-9+math.Abs(ns)*1e-15)
	switch {
	case f < tol:
		f = 0
	case f > 1-tol:
		w, f = w+1, 0
	}
	return base + int64(w), f, true
}

// ceilPos rounds a position up to whole nanoseconds.
func ceilPos(base int64, frac float64) int64 {
	if frac > 0 {
		return base + 1
	}
	return base
}
