package sweep_test

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

func TestParseVary(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{in: "keyspace.salt=1,2,4", want: []string{"1", "2", "4"}},
		{in: `keyspace.key=["a"],["a", "b"]`, want: []string{`["a"]`, `["a", "b"]`}},
		{in: `streams.put.fields={ user_id = { gen = "uniform", n = 10 } },{ x = 1 }`, want: []string{`{ user_id = { gen = "uniform", n = 10 } }`, `{ x = 1 }`}},
		{in: `name="a,b",c`, want: []string{`"a,b"`, "c"}},
		{in: "keyspace.salt=", bad: true},
		{in: "keyspace.salt=1,,2", bad: true},
		{in: "=1,2", bad: true},
		{in: "keyspace.salt", bad: true},
	} {
		a, err := sweep.ParseVary(tc.in)
		if tc.bad != (err != nil) || (!tc.bad && !reflect.DeepEqual(a.Values, tc.want)) {
			t.Errorf("ParseVary(%q) = %v, %v; want %v (error: %v)", tc.in, a.Values, err, tc.want, tc.bad)
		}
	}
	pts := sweep.Points([]sweep.Axis{{Key: "a", Values: []string{"1", "2"}}, {Key: "b", Values: []string{"x", "y", "z"}}})
	if len(pts) != 6 || pts[1].Values[1] != "y" || pts[3].Values[0] != "2" || pts[5].Index != 5 {
		t.Errorf("Points = %v", pts)
	}
}

func TestParseSLO(t *testing.T) {
	s, err := sweep.ParseSLO("create_order:p99<50ms")
	if err != nil || s.Stream != "create_order" || s.Stat != metrics.P99 || s.Bound != 50 {
		t.Errorf("ParseSLO = %+v, %v", s, err)
	}
	for _, bad := range []string{"create_order", "create_order:p99", "create_order:p98<50ms", ":p99<50ms", "x:p99<fast", "x:p99<-1ms"} {
		if _, err := sweep.ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) accepted", bad)
		}
	}
}

func smallSweep(parallel int) sweep.Config {
	return sweep.Config{
		Scenario:     "../../testdata/keys/salt16.toml",
		Options:      scenarios.Options{Sets: []string{`duration="5s"`}},
		Axes:         []sweep.Axis{{Key: "keyspace.salt", Values: []string{"1", "4", "16"}}},
		Replications: 2,
		Parallel:     parallel,
	}
}

// A sweep's rows are identical with one and two workers, and a point rerun alone with
// its seed (as `shardsim run --set KEY=V --seed S` would) reproduces the row's sample.
func TestSweepDeterministic(t *testing.T) {
	var out [2]bytes.Buffer
	var rows [2][]sweep.Row
	for i, j := range []int{1, 2} {
		c := smallSweep(j)
		r, err := sweep.Run(c)
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = r
		if err := (&sweep.Sweep{Config: c, Rows: r}).CSV(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	if out[0].String() != out[1].String() {
		t.Fatalf("sweep.csv differs between -j 1 and -j 2:\n%s\n%s", out[0].String(), out[1].String())
	}
	if len(rows[0]) != 3*2 { // 3 points x 2 variants
		t.Fatalf("%d rows, want 6", len(rows[0]))
	}
	// Rerun point 2 (salt 16), variant "salt from user_id", replication 1 alone.
	row := rows[0][5]
	sc, err := scenarios.Load("../../testdata/keys/salt16.toml", scenarios.Options{
		Sets:     []string{`duration="5s"`, "keyspace.salt=16", fmt.Sprintf("seed=%d", row.Seeds[1])},
		Variants: []string{row.Variant},
	})
	if err != nil {
		t.Fatal(err)
	}
	alone := metrics.Of(sim.Run(sc.Variants[0].Model()))
	// With two replications the row's mean is (rep0 + rep1)/2; rerun rep 0 too.
	sc0, _ := scenarios.Load("../../testdata/keys/salt16.toml", scenarios.Options{
		Sets:     []string{`duration="5s"`, "keyspace.salt=16", fmt.Sprintf("seed=%d", row.Seeds[0])},
		Variants: []string{row.Variant},
	})
	rep0 := metrics.Of(sim.Run(sc0.Variants[0].Model()))
	if mean := (*rep0.Streams[1].Latency.P99 + *alone.Streams[1].Latency.P99) / 2; mean != row.Streams[1].P99.Mean {
		t.Errorf("rerun alone: p99 mean %v, the sweep's row says %v", mean, row.Streams[1].P99.Mean)
	}
}

// Over 200 independent experiments of R = 5 replications each (M/M/1, lambda = 700/s,
// mu = 1000/s, 30 s and about 21,000 requests per replication, seeds 1000k + r), the 95%
// Student-t interval of the mean latency covers the true mean 1/(mu - lambda) = 3.333 ms
// in 90% to 99% of experiments.
func TestConfidenceIntervalCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 runs")
	}
	const experiments, reps = 200, 5
	truth := 1000.0 / 300
	covered := 0
	for k := 0; k < experiments; k++ {
		rows, err := sweep.Run(sweep.Config{
			Scenario:     "../../testdata/queueing/mm1.toml",
			Options:      scenarios.Options{Sets: []string{`duration="30s"`, `warmup="2s"`, fmt.Sprintf("seed=%d", 1000*(k+1))}},
			Replications: reps, Parallel: 2,
		})
		if err != nil {
			t.Fatal(err)
		}
		e := rows[0].Streams[0].Mean
		if math.Abs(e.Mean-truth) <= e.Half {
			covered++
		}
	}
	if share := float64(covered) / experiments; share < 0.90 || share > 0.99 {
		t.Errorf("the 95%% interval covered the true mean in %.1f%% of %d experiments, want 90%% to 99%%", 100*share, experiments)
	} else {
		t.Logf("coverage %.1f%%", 100*float64(covered)/experiments)
	}
}

func TestEstimated(t *testing.T) {
	e := replicas.Estimated([]float64{1, 2, 3, 4})
	// mean 2.5, sd 1.2910, t(0.975, 3) = 3.1824: half-width 3.1824 * 1.2910 / 2 = 2.0543.
	if e.Mean != 2.5 || math.Abs(e.Half-2.0543) > 1e-3 {
		t.Errorf("replicas.Estimated = %+v, want mean 2.5, half-width 2.0543", e)
	}
	if one := replicas.Estimated([]float64{7}); !math.IsNaN(one.Half) {
		t.Errorf("one replication has half-width %v, want NaN", one.Half)
	}
}
