package sim

import (
	"slices"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// TestSoloMatchesSlotPath: a plain one-shard request that detection does not sample runs
// without a request slot (a solo), and takes one only if it fails (promote). Sampling every
// request (SampleEvery 1, which draws nothing) sends every request the ordinary way, so a
// run with it and a run without detection must record the same outcomes. The model (seed
// 5, 30 s, Poisson writes at 2,000/s of 0.6 ms on one core, a queue of at most 3 and a
// partition limit of 1,500 writes/s) rejects and throttles thousands of writes, so the
// failure paths of solos are compared too.
func TestSoloMatchesSlotPath(t *testing.T) {
	mk := func(sampleAll bool) *Model {
		m := &Model{
			Seed: 5, Duration: 30 * Second, Warmup: 2 * Second, Window: Second, Network: 200 * Microsecond,
			Nodes: []Node{{Cores: 1, QueueLimit: 3}}, ShardNode: []int{0},
			Streams: []Stream{{
				Name: "put", Op: Write, Cost: 600 * Microsecond,
				Arrivals: workload.NewPoisson(constRate(2000)),
				Fields:   []workload.Generator{workload.NewUniform(1 << 20)},
				Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), false),
			}},
			Mechanisms: []Setting{testLimit{Rate: 1500, Burst: Second}},
		}
		if sampleAll {
			m.Streams[0].KeyFields = []int{0}
			m.Detect.SampleEvery = 1
		}
		return m
	}
	solo, slot := Run(mk(false)), Run(mk(true))
	// Requests of the warmup are never sampled, so they are solos in both runs: that each
	// request issued after it has exactly one outcome guards their promotion.
	conserve(t, solo)
	conserve(t, slot)
	a, b := &solo.Streams[0], &slot.Streams[0]
	if b.SampledRequests != b.Offered || a.SampledRequests != 0 {
		t.Fatalf("sampled %d of %d and %d of %d; want all, and none", b.SampledRequests, b.Offered, a.SampledRequests, a.Offered)
	}
	if a.Rejected < 1000 || a.Failed[testThrottled] < 1000 {
		t.Fatalf("%d rejected, %d throttled: the model must exercise both failures", a.Rejected, a.Failed[testThrottled])
	}
	if a.Offered != b.Offered || a.Attempts != b.Attempts || a.Completed != b.Completed ||
		a.Rejected != b.Rejected || a.Failed[testThrottled] != b.Failed[testThrottled] ||
		a.LatencySum != b.LatencySum || a.LatencyMax != b.LatencyMax {
		t.Errorf("solos: %d offered, %d attempts, %d completed, %d rejected, %d throttled, latency sum %v max %v;\n"+
			"slots: %d, %d, %d, %d, %d, %v, %v", a.Offered, a.Attempts, a.Completed, a.Rejected, a.Failed[testThrottled], a.LatencySum, a.LatencyMax,
			b.Offered, b.Attempts, b.Completed, b.Rejected, b.Failed[testThrottled], b.LatencySum, b.LatencyMax)
	}
	if !slices.Equal(a.Latency.Export().Counts, b.Latency.Export().Counts) {
		t.Error("the latency histograms differ")
	}
	for w := range a.Win {
		x, y := a.Win[w], b.Win[w]
		if x.Completed != y.Completed || x.Errors != y.Errors || x.Failed[testThrottled] != y.Failed[testThrottled] || x.Max != y.Max {
			t.Errorf("window %d: solos %+v, slots %+v", w, x, y)
		}
	}
	if !slices.Equal(solo.NodeMaxQueue, slot.NodeMaxQueue) || !slices.Equal(solo.ShardBusy, slot.ShardBusy) {
		t.Error("the node queue or shard load series differ")
	}
}
