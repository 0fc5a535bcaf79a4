package replicas

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// Intervals never leave the range the figure can take: positive samples get a positive
// interval around their geometric mean; samples with a zero an interval cut at 0.
// Figures: t(0.975, 2) = 4.3027; logs of {1, 10, 100} have mean ln 10 and sd ln 10.
func TestEstimatedBounds(t *testing.T) {
	e := Estimated([]float64{1, 10, 100})
	lo, hi := math.Exp(math.Log(10)*(1-4.3027/math.Sqrt(3))), math.Exp(math.Log(10)*(1+4.3027/math.Sqrt(3)))
	if math.Abs(e.Lo/lo-1) > 1e-3 || math.Abs(e.Hi/hi-1) > 1e-3 || e.Median != 10 || e.Min != 1 || e.Max != 100 || e.Mean != 37 {
		t.Errorf("got %+v, want interval [%.4g, %.4g], median 10, range 1-100, mean 37", e, lo, hi)
	}
	z := Estimated([]float64{0, 0, 3})
	if z.Lo != 0 || !(z.Hi > 1) {
		t.Errorf("got interval [%v, %v], want it cut at 0", z.Lo, z.Hi)
	}
}

// TestBottleneckWording checks the "binds" cell: a node's peak, a row lock's offered load
// and, where the replications disagree on what binds, how many of them agree, both in
// words; and "none", with the resource nearest its limit, when nothing binds yet
// (metrics.Bottleneck.Binding: no failure, no failed objective, under half its capacity).
func TestBottleneckWording(t *testing.T) {
	cpu := metrics.Bottleneck{Resource: metrics.CPU, Node: 15, Peak: 0.96, Binding: true}
	for _, c := range []struct {
		b         metrics.Bottleneck
		agree, of int
		want      string
	}{
		{cpu, 3, 3, "cpu node 15 (96% peak)"},
		{cpu, 1, 3, "cpu node 15 (96% peak; 1 of 3 seeds)"},
		{metrics.Bottleneck{Resource: metrics.Queue, Node: 2, Binding: true}, 2, 3, "queue node 2 (2 of 3 seeds)"},
		{metrics.Bottleneck{Resource: metrics.FanOut, Node: -1, Stream: "scan", Binding: true}, 1, 1, "fan-out of scan"},
		{metrics.Bottleneck{Resource: metrics.Locks, Node: -1, Stream: "upd", Lock: 0.9, Binding: true}, 2, 2, "locks of upd (90% offered)"},
		{metrics.Bottleneck{Resource: metrics.CPU, Node: 1, Peak: 0.14}, 2, 2, "none (node 1 at 14% peak)"},
		{metrics.Bottleneck{Resource: metrics.CPU, Node: 1, Peak: 0.14}, 1, 2, "none (node 1 at 14% peak; 1 of 2 seeds)"},
		{metrics.Bottleneck{Resource: metrics.Locks, Node: -1, Stream: "upd", Lock: 0.3}, 2, 2, "none (locks of upd at 30% offered)"},
	} {
		if got := BottleneckShort(c.b, c.agree, c.of); got != c.want {
			t.Errorf("BottleneckShort(%+v, %d, %d) = %q, want %q", c.b, c.agree, c.of, got, c.want)
		}
	}
}

// An error rate that rounds to nothing is not printed as none, and two replications give
// no interval (t(0.975, 1) = 12.7 made [0.528, 303448]).
func TestSmallFiguresWording(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{units.Share(0, 2, units.KeepZero), "0.00%"},
		{units.Share(1.0/500_000, 2, units.KeepZero), "<0.01%"},
		{units.Share(0.0125, 2, units.KeepZero), "1.25%"},
		{WithInterval(Estimated([]float64{0.528, 1000}), 2, ""), "500.26 [n/a: 2 runs]"},
		{WithInterval(Estimated([]float64{5}), 2, " ms"), "5.00 ms"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if lo, hi := Band(Estimated([]float64{0.528, 1000})); lo != 0.528 || hi != 1000 {
		t.Errorf("two runs' band [%v, %v], want their range", lo, hi)
	}
}
