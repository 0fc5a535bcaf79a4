package workload

import (
	"math"
	"testing"
)

// TestAges: ConstAge returns its value (0 if negative); ExpAge(1e9) over N = 1e6 draws
// (seed 22) has mean within 5·1e9/sqrt(N) (±0.5%) of 1e9 and the fraction above the mean
// within 5·sqrt(p(1-p)/N) of e^-1; UniformAge(1000) stays in [0, 1000], reaches both ends,
// and has mean 500 within 5·sqrt((1001²-1)/12/N); zero or negative parameters give 0.
func TestAges(t *testing.T) {
	r := newRand(22)
	if ConstAge(5).Draw(r) != 5 || ConstAge(-5).Draw(r) != 0 {
		t.Errorf("ConstAge")
	}
	const N = 1_000_000
	sum, above := 0.0, 0
	for range N {
		x := ExpAge(1e9).Draw(r)
		if x < 0 {
			t.Fatalf("negative age %d", x)
		}
		sum += float64(x)
		if x > 1e9 {
			above++
		}
	}
	if m := sum / N; math.Abs(m-1e9) > 5*1e9/math.Sqrt(N) {
		t.Errorf("ExpAge mean %.4g", m)
	}
	p := math.Exp(-1)
	if f := float64(above) / N; math.Abs(f-p) > 5*math.Sqrt(p*(1-p)/N) {
		t.Errorf("ExpAge P(> mean) = %.4f, want %.4f", f, p)
	}
	sum = 0
	seen0, seen1000 := false, false
	for range N {
		x := UniformAge(1000).Draw(r)
		if x < 0 || x > 1000 {
			t.Fatalf("UniformAge(1000) drew %d", x)
		}
		seen0, seen1000 = seen0 || x == 0, seen1000 || x == 1000
		sum += float64(x)
	}
	if m := sum / N; !seen0 || !seen1000 || math.Abs(m-500) > 5*math.Sqrt((1001*1001-1)/12.0/N) {
		t.Errorf("UniformAge(1000): mean %.2f, ends drawn %v %v", m, seen0, seen1000)
	}
	if ExpAge(0).Draw(r) != 0 || UniformAge(-1).Draw(r) != 0 || UniformAge(math.MaxInt64).Draw(r) < 0 {
		t.Errorf("degenerate ages")
	}
	var _ Age = ConstAge(0)
	var _ Age = ExpAge(0)
	var _ Age = UniformAge(0)
}
