package sim_test

import (
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// TestSaturatedLoadAtMostFull: a run that stops early as saturated covers nothing after its
// stop, so the service its subrequests in progress would have given after the stop is not
// busy time either. One core offered five times what it serves (5,000 writes/s of 1 ms,
// seed 1) is busy from its first arrival to the stop, a few hundred microseconds short
// of the whole time run: its load must be within 1% of 100% and never above it, in the
// run and in every window (it read 100.07% before, the last subrequest's remaining 1 ms
// counted against a capacity that ends at the stop).
func TestSaturatedLoadAtMostFull(t *testing.T) {
	for _, bound := range []int{1_000, 3_000} {
		r := sim.Run(&sim.Model{
			Seed: 1, Duration: 30 * sim.Second, Window: sim.Second / 4, MaxQueued: bound,
			Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0},
			Streams: []sim.Stream{{
				Name: "w", Op: sim.Write, Cost: sim.Millisecond, Service: sim.Service{Kind: sim.Exponential},
				Arrivals: workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 5000}}),
				Fields:   []workload.Generator{workload.NewUniform(1000)},
				Planner:  keyspace.NewPointPlanner(&keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}, keyspace.NewModulo(1), false),
			}},
		})
		if !r.Saturated || r.Elapsed >= r.Duration {
			t.Fatalf("bound %d: the run did not stop early (saturated %v at %v)", bound, r.Saturated, r.Elapsed)
		}
		if l := r.NodeLoad(0); l > 1 || l < 0.99 {
			t.Errorf("bound %d: node load %.5f over the %v run, want in [0.99, 1]", bound, l, r.Elapsed)
		}
		if l := r.Utilization(0); l > 1 || l < 0.99 {
			t.Errorf("bound %d: shard load %.5f, want in [0.99, 1]", bound, l)
		}
		for w := range r.Windows {
			if u, s := r.NodeUtilization(w, 0), r.ShardUtilization(w, 0); u > 1 || s > 1 || u < 0 || s < 0 {
				t.Errorf("bound %d: window %d: node load %.5f, shard load %.5f, want within [0, 1]", bound, w, u, s)
			}
		}
	}
}
