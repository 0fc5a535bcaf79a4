package metrics_test

import (
	"reflect"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestOfStreamed: metrics.Of of a run whose shard series went to a DigestSink (as a
// sweep's or a capacity search's runs above scenario.StreamShardCells) must equal Of of the
// same run keeping them: every shard's utilization and peak, the peak window and the
// comparison of the shards in it. quickstart's three variants (a hot shard) and
// noisy-tenant's four (replicas on two of them), shortened to 12 s of 2 s windows.
func TestOfStreamed(t *testing.T) {
	for _, path := range []string{"../../scenarios/quickstart.toml", "../../scenarios/noisy-tenant.toml"} {
		sc, err := scenarios.Load(path, scenarios.Options{Sets: []string{`duration="12s"`, `window="2s"`, `warmup="2s"`}})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range sc.Variants {
			want := metrics.Of(sim.Run(v.Model()))
			m := v.Model()
			m.Sink = &metrics.DigestSink{Windows: m.Windows(), Lines: metrics.NoLines}
			r := sim.Run(m)
			if d := metrics.DigestOf(r); d == nil || len(d.Hot) != 0 {
				t.Fatalf("%s: no digest, or hot changes recorded with NoLines", v.Name)
			}
			if got := metrics.Of(r); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s: Of differs when the run streams", path, v.Name)
			}
		}
	}
}
