package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// TestClosedLoopMVA holds closed-loop clients to exact mean-value analysis of the
// machine-repairman model: N clients, think time Z = 8 ms (exponential), one queue with
// one core and exponential service S = 1 ms, no network. MVA, exact for this product-form
// network: R(n) = S (1 + Q(n-1)), X(n) = n / (Z + R(n)), Q(n) = X(n) R(n), from Q(0) = 0.
// N = 1: X = 111.1/s, R = 1 ms; N = 8: X = 764.4/s, R = 2.465 ms; N = 64: X = 1,000/s
// (to 20 digits), R = 56 ms. Seed 1, 5 s of warmup then 60 s: 6,700 to 60,000 requests.
// Tolerance 3% on both; over seeds 1 to 5 the largest errors were 1.2% (X) and 1.6% (R),
// both at N = 1, the smallest sample.
func TestClosedLoopMVA(t *testing.T) {
	const S, Z = 1e-3, 8e-3
	figs := map[string][]string{}
	for _, n := range []int{1, 8, 64} {
		q, x, rt := 0.0, 0.0, 0.0
		for k := 1; k <= n; k++ {
			rt = S * (1 + q)
			x = float64(k) / (Z + rt)
			q = x * rt
		}
		d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
		m := &Model{
			Seed: 1, Duration: 65 * Second, Warmup: 5 * Second, Window: 65 * Second,
			Nodes: []Node{{Cores: 1}}, ShardNode: []int{0},
			Streams: []Stream{{
				Name: "c", Op: Write, Cost: Millisecond,
				Fields:  []workload.Generator{workload.NewUniform(1000)},
				Planner: keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
				Clients: n, Think: Delay{Kind: Exponential, Mean: 8 * Millisecond},
			}},
		}
		r := Run(m)
		st := &r.Streams[0]
		gotX := float64(st.Completed) / 60
		gotR := st.LatencySum / float64(st.Completed) / 1e9
		for k, v := range map[string]string{"mva.x": fmt.Sprintf("%.1f", x), "mva.sim_x": fmt.Sprintf("%.1f", gotX),
			"mva.r": fmt.Sprintf("%.3f", rt*1e3), "mva.sim_r": fmt.Sprintf("%.3f", gotR*1e3)} {
			figs[k] = append(figs[k], v)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"throughput", gotX, x}, {"mean response", gotR, rt}} {
			if rel := math.Abs(c.got-c.want) / c.want; rel > 0.03 {
				t.Errorf("N = %d: %s %.5g, MVA %.5g: off by %.1f%%, tolerance 3%%", n, c.what, c.got, c.want, rel*100)
			} else {
				t.Logf("N = %d: %s %.5g, MVA %.5g (off by %.2f%%)", n, c.what, c.got, c.want, rel*100)
			}
		}
	}
	joined := map[string]string{}
	for k, v := range figs {
		joined[k] = strings.Join(v, ", ")
	}
	docmark.Figures(t, "../README.md", "mva", joined)
}

// TestRowServiceClamped: rows x row cost past MaxRowService is clamped to it instead of
// wrapping to a negative time (10^10 rows of 1 s passed 2^63 ns).
func TestRowServiceClamped(t *testing.T) {
	if got := rowService(10_000_000_000, Second); got != MaxRowService {
		t.Errorf("10^10 rows of 1s: %v, want %v", got, MaxRowService)
	}
	if got := rowService(1000, Millisecond); got != Second {
		t.Errorf("1000 rows of 1ms: %v", got)
	}
	if got := rowService(5, 0); got != 0 {
		t.Errorf("rows of no cost: %v", got)
	}
}
