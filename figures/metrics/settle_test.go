package metrics

import (
	"math"
	"testing"
)

// TestRelaxation checks Relaxation against its formula, S / (c (1 - sqrt(rho))^2), at
// points worked by hand, and its edges.
func TestRelaxation(t *testing.T) {
	for _, c := range []struct {
		rho     float64
		cores   int
		service float64
		want    float64
	}{
		{0.81, 1, 1e-3, 0.1},      // (1 - 0.9)^2 = 0.01
		{0.81, 4, 1e-3, 0.025},    // four cores pool their rate
		{0.9801, 1, 1e-3, 10},     // (1 - 0.99)^2 = 1e-4: 100 times as long as at 0.81
		{0.25, 2, 2e-3, 0.004},    // (1 - 0.5)^2 = 0.25
		{0, 4, 1e-3, 0},           // idle
		{0.5, 4, 0, 0},            // nothing served
		{1, 4, 1e-3, math.Inf(1)}, // never settles
		{1.2, 4, 1e-3, math.Inf(1)},
	} {
		got := Relaxation(c.rho, c.cores, c.service)
		if !(got == c.want || math.Abs(got-c.want) <= 1e-12*c.want) {
			t.Errorf("Relaxation(%v, %d, %v) = %v, want %v", c.rho, c.cores, c.service, got, c.want)
		}
	}
}
