package workload

import (
	"math"
	"testing"
)

// featureSchedule has every feature: a constant rate before the first point, ramps up and
// down, a step down to 0, a zero stretch, a step up, a ramp down to 0 and back up, and a
// constant tail.
var featureSchedule = Schedule{
	{-sec, 50}, {0, 100}, {10 * sec, 1000}, {10 * sec, 0}, {20 * sec, 0}, {20 * sec, 500},
	{30 * sec, 0}, {40 * sec, 0}, {50 * sec, 2000}, {55 * sec, 333.3},
}

// TestUniformArrivalsCounts runs UniformArrivals over featureSchedule from -5 s to 70 s
// and checks that the number of arrivals in every window [a, b) is Integral(a, b) up to
// rounding: |count - Integral| <= 1 (+1e-6 for float rounding), for the 750 windows of
// 100 ms and 2000 random windows (seed 20); and that there is no arrival where the rate
// is 0, in (10 s, 20 s) and (30 s, 40 s). (Λ(10 s) = 5575 is a whole number, so an
// arrival falls exactly at 10 s, the last instant Λ grows.)
func TestUniformArrivalsCounts(t *testing.T) {
	a := NewUniformArrivals(featureSchedule)
	var times []int64
	r := newRand(20)
	for at := a.Next(r, -5*sec); at < 70*sec; at = a.Next(r, at) {
		if n := len(times); n > 0 && at < times[n-1] {
			t.Fatalf("arrival %d at %d before the previous, %d", n, at, times[n-1])
		}
		if (at > 10*sec && at < 20*sec) || (at > 30*sec && at < 40*sec) {
			t.Fatalf("arrival at %d where the rate is 0", at)
		}
		times = append(times, at)
	}
	count := func(a, b int64) int { // arrivals in [a, b), times sorted
		n := 0
		for _, x := range times {
			if x >= a && x < b {
				n++
			}
		}
		return n
	}
	check := func(a, b int64) {
		if c, want := count(a, b), featureSchedule.Integral(a, b); math.Abs(float64(c)-want) > 1+1e-6 {
			t.Errorf("[%d, %d): %d arrivals, integral %.4f", a, b, c, want)
		}
	}
	for w := -5 * sec; w < 70*sec; w += sec / 10 {
		check(w, w+sec/10)
	}
	for range 2000 {
		x, y := r.Int64N(75*sec)-5*sec, r.Int64N(75*sec)-5*sec
		check(min(x, y), max(x, y))
	}
	t.Logf("%d arrivals, integral %.2f", len(times), featureSchedule.Integral(-5*sec, 70*sec))
}

// TestUniformArrivalsSpacing: at a constant 3000/s the arrivals are 1/3000 s apart, so
// every gap is 333333 or 333334 ns and 3000 arrivals span 1 s to within 1 ns; starting at
// the schedule's first point, arrival k is exactly at ceil(k·1e9/3000) ns (rounded up,
// for k < 1e5) and at 1000/s exactly at k ms (no spurious +1 ns from float rounding).
func TestUniformArrivalsSpacing(t *testing.T) {
	a := NewUniformArrivals(Schedule{{0, 3000}})
	first := a.Next(nil, 12345)
	prev := first
	for range 3000 {
		next := a.Next(nil, prev)
		if g := next - prev; g != 333333 && g != 333334 {
			t.Fatalf("gap %d ns at 3000/s", g)
		}
		prev = next
	}
	if d := prev - first - sec; d < -1 || d > 1 {
		t.Errorf("3000 gaps span %d ns", prev-first)
	}
	// Rounding is up: arrival k at 3000/s from 0 is at exactly ceil(k·1e9/3000) ns.
	a = NewUniformArrivals(Schedule{{0, 3000}})
	at := a.Next(nil, 0)
	for k := range int64(100_000) {
		if want := (k*1e9 + 2999) / 3000; at != want {
			t.Fatalf("arrival %d at 3000/s at %d, want ceil(k·1e9/3000) = %d", k, at, want)
		}
		at = a.Next(nil, at)
	}
	a = NewUniformArrivals(Schedule{{0, 1000}})
	at = a.Next(nil, 0)
	for k := range int64(10000) {
		if at != k*1e6 {
			t.Fatalf("arrival %d at %d, want %d", k, at, k*1e6)
		}
		at = a.Next(nil, at)
	}
}

// TestUniformArrivalsEnd: ramping down to 0 at 1 s, Λ reaches 500 exactly at 1 s, so the
// arrivals are k = 0..500 (501 of them, the last at 1 s) and then Never.
func TestUniformArrivalsEnd(t *testing.T) {
	a := NewUniformArrivals(Schedule{{0, 1000}, {sec, 0}})
	n, last := 0, int64(0)
	for at := a.Next(nil, 0); at != Never; at = a.Next(nil, at) {
		n++
		last = at
	}
	if n != 501 || last != sec {
		t.Errorf("%d arrivals, last at %d; want 501, last at 1 s", n, last)
	}
	if a.Next(nil, 2*sec) != Never {
		t.Errorf("arrival after the end")
	}
}
