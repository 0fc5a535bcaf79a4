package workload

import (
	"fmt"
	"math"
)

// A Point of a Schedule: from At (ns) the rate is Rate (events per second).
type Point struct {
	At   int64
	Rate float64
}

// A Schedule is a piecewise linear rate: sorted by At (non-decreasing), the rate varies
// linearly between consecutive points, is constant at the last point's rate after it and
// constant at the first point's rate before it. Two points at the same At make a step:
// the rate is the later point's from At on (the rate is right-continuous).
//
// A Schedule must have at least one point, At non-decreasing and every Rate finite and
// >= 0; Check reports whether it does. The scenario loader is expected to validate
// schedules; the methods here assume a valid schedule and panic only on an empty one.
type Schedule []Point

// Check returns an error describing why s is not a valid schedule, or nil.
func (s Schedule) Check() error {
	if len(s) == 0 {
		return fmt.Errorf("workload: empty schedule")
	}
	for i, p := range s {
		if !(p.Rate >= 0) || math.IsInf(p.Rate, 1) {
			return fmt.Errorf("workload: schedule point %d: rate %v is not finite and >= 0", i, p.Rate)
		}
		if i > 0 && p.At < s[i-1].At {
			return fmt.Errorf("workload: schedule point %d: At %d before the previous point's %d", i, p.At, s[i-1].At)
		}
	}
	return nil
}

// segment returns the largest i with s[i].At <= t, or -1 if t is before the first point.
func (s Schedule) segment(t int64) int {
	lo, hi := 0, len(s) // the answer + 1 is the first index with At > t, in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m].At <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// rateIn returns the rate at t inside segment i (s[i].At <= t <= s[i+1].At).
func (s Schedule) rateIn(i int, t int64) float64 {
	p, q := s[i], s[i+1]
	if t == p.At {
		return p.Rate
	}
	if t == q.At {
		return q.Rate
	}
	return p.Rate + (q.Rate-p.Rate)*(float64(t-p.At)/float64(q.At-p.At))
}

// Rate returns the rate at time t, in events per second.
func (s Schedule) Rate(t int64) float64 {
	if len(s) == 0 {
		panic("workload: empty schedule")
	}
	i := s.segment(t)
	switch {
	case i < 0:
		return s[0].Rate
	case i == len(s)-1:
		return s[i].Rate
	}
	return s.rateIn(i, t)
}

// Integral returns the integral of the rate over [a, b), the expected number of arrivals
// of a Poisson process following s in that interval: exact (up to floating-point
// rounding) since the rate is piecewise linear, each piece contributes the trapezoid
// (rate(lo) + rate(hi))/2 · (hi - lo). If a > b it returns -Integral(b, a).
func (s Schedule) Integral(a, b int64) float64 {
	if len(s) == 0 {
		panic("workload: empty schedule")
	}
	if a > b {
		return -s.Integral(b, a)
	}
	sum := 0.0 // in events·ns/s
	last := len(s) - 1
	for i, j := s.segment(a), s.segment(b-1); i <= j; i++ {
		switch {
		case i < 0: // the constant piece before the first point
			sum += s[0].Rate * float64(min(b, s[0].At)-a)
		case i == last: // the constant piece from the last point on
			sum += s[i].Rate * float64(b-max(a, s[i].At))
		default:
			lo, hi := max(a, s[i].At), min(b, s[i+1].At)
			if lo < hi {
				sum += (s.rateIn(i, lo) + s.rateIn(i, hi)) / 2 * float64(hi-lo)
			}
		}
	}
	return sum / 1e9
}
