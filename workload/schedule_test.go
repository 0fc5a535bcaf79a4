package workload

import (
	"math"
	"slices"
	"testing"
)

// randomSchedule returns a valid schedule of 1 to 8 points with At in [-1e10, 1e10] ns,
// some repeated (steps), and rates in [0, 1e4] with some exact zeros.
func randomSchedule(r interface {
	IntN(int) int
	Int64N(int64) int64
	Float64() float64
}) Schedule {
	s := make(Schedule, 1+r.IntN(8))
	for i := range s {
		s[i].At = r.Int64N(2e10) - 1e10
		if r.IntN(4) > 0 {
			s[i].Rate = r.Float64() * 1e4
		}
	}
	slices.SortFunc(s, func(a, b Point) int { return int(sign(a.At - b.At)) })
	for i := 1; i < len(s); i++ {
		if r.IntN(5) == 0 {
			s[i].At = s[i-1].At // a step
		}
	}
	return s
}

func sign(x int64) int64 {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// TestIntegralTrapezoid compares Integral(a, b) with numerical integration of Rate for
// 300 random schedules and windows (seed 13), windows within [-2e10, 2e10] ns.
//
// 1. Plain trapezoid rule on a uniform grid of N = 2e4 steps of h = (b-a)/N:
// Σ (t_{i+1}-t_i)·(Rate(t_i)+Rate(t_{i+1}))/2. It is exact on linear pieces; each of the
// P points inside the window (a kink or a step) costs at most h·maxRate, so the
// tolerance is (P+1)·h·maxRate/1e9 events.
// 2. The same rule on the grid refined with every point's At and At-1 (so every linear
// piece is integrated exactly and a step costs at most 1 ns·maxRate): the tolerance is
// (P+1)·maxRate·1e-9 + 1e-9·|I|.
func TestIntegralTrapezoid(t *testing.T) {
	r := newRand(13)
	for iter := range 300 {
		s := randomSchedule(r)
		a := r.Int64N(4e10) - 2e10
		b := a + r.Int64N(2e10-a+1)
		got := s.Integral(a, b)
		maxRate := 0.0
		for _, p := range s {
			maxRate = max(maxRate, p.Rate)
		}
		trap := func(grid []int64) float64 {
			sum := 0.0
			for i := 0; i+1 < len(grid); i++ {
				sum += float64(grid[i+1]-grid[i]) * (s.Rate(grid[i]) + s.Rate(grid[i+1])) / 2
			}
			return sum / 1e9
		}
		const N = 20_000
		grid := make([]int64, 0, N+1+2*len(s))
		for i := range int64(N + 1) {
			grid = append(grid, a+int64(float64(b-a)*float64(i)/N))
		}
		grid[N] = b
		h := float64(b-a) / N
		if want, tol := trap(grid), float64(len(s)+1)*(h+1)*maxRate/1e9; math.Abs(got-want) > tol {
			t.Fatalf("iter %d: %v: Integral(%d, %d) = %v, trapezoid %v (tol %v)", iter, s, a, b, got, want, tol)
		}
		for _, p := range s {
			for _, x := range []int64{p.At - 1, p.At} {
				if x > a && x < b {
					grid = append(grid, x)
				}
			}
		}
		slices.Sort(grid)
		want := trap(grid)
		if tol := float64(len(s)+1)*maxRate*1e-9 + 1e-9*math.Abs(want); math.Abs(got-want) > tol {
			t.Fatalf("iter %d: %v: Integral(%d, %d) = %v, refined trapezoid %v (tol %v)", iter, s, a, b, got, want, tol)
		}
	}
}

// TestScheduleBasics checks Rate at and between points, before and after the schedule
// and across a step; Integral's additivity, sign and closed forms for a simple schedule;
// and Check.
func TestScheduleBasics(t *testing.T) {
	s := Schedule{{0, 100}, {10e9, 200}, {10e9, 50}, {20e9, 50}}
	for _, c := range []struct {
		t    int64
		want float64
	}{{-5e9, 100}, {0, 100}, {5e9, 150}, {10e9 - 1, 200 - 1e-8}, {10e9, 50}, {15e9, 50}, {1e12, 50}} {
		if got := s.Rate(c.t); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Rate(%d) = %v, want %v", c.t, got, c.want)
		}
	}
	// Closed forms: 100/s for 5 s before 0; the ramp 0..10 s averages 150/s; then 50/s.
	for _, c := range []struct {
		a, b int64
		want float64
	}{{-5e9, 0, 500}, {0, 10e9, 1500}, {-5e9, 30e9, 500 + 1500 + 1000}, {5e9, 10e9, 875}, {7, 7, 0}, {10e9, 0, -1500}} {
		if got := s.Integral(c.a, c.b); math.Abs(got-c.want) > 1e-9*math.Abs(c.want)+1e-12 {
			t.Errorf("Integral(%d, %d) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	r := newRand(14)
	for range 1000 {
		s := randomSchedule(r)
		x := []int64{r.Int64N(4e10) - 2e10, r.Int64N(4e10) - 2e10, r.Int64N(4e10) - 2e10}
		slices.Sort(x)
		whole, parts := s.Integral(x[0], x[2]), s.Integral(x[0], x[1])+s.Integral(x[1], x[2])
		if math.Abs(whole-parts) > 1e-9*math.Abs(whole)+1e-9 {
			t.Fatalf("%v: Integral not additive over %v: %v vs %v", s, x, whole, parts)
		}
	}
	for _, bad := range []Schedule{nil, {{0, -1}}, {{0, math.NaN()}}, {{0, math.Inf(1)}}, {{5, 1}, {4, 1}}} {
		if bad.Check() == nil {
			t.Errorf("Check(%v) = nil", bad)
		}
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}
