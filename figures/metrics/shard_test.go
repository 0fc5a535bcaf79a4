package metrics

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/sim"
)

// TestShardP99 holds a shard's p99 to M/M/1: one core, Poisson writes at 700/s of
// exponential service with mean 1 ms (seed 3, 300 s, about 210,000 subrequests). The time
// at the node (waiting and service) is exponential with rate mu - lambda = 300/s, so its
// p99 is ln(100)/300 s = 15.35 ms. The shard's histogram has 1 significant digit (buckets
// within 6.25%, the upper end reported) and the sample's p99 a standard error near 1.5%:
// tolerance 9%. A second, idle shard has no p99 and no failures.
func TestShardP99(t *testing.T) {
	m := &sim.Model{
		Seed: 3, Duration: 300 * sim.Second, Window: 10 * sim.Second,
		Nodes: []sim.Node{{Cores: 1}, {Cores: 1}}, ShardNode: []int{0, 1},
		Streams: []sim.Stream{point("put", sim.Write, 700, sim.Millisecond)},
	}
	run := Of(sim.Run(m))
	want := 1000 * math.Log(100) / 300
	if p := run.Shards[0].P99; p == nil || math.Abs(*p-want)/want > 0.09 {
		t.Errorf("shard 0: p99 %v ms, want %.2f ms within 9%%", p, want)
	} else {
		t.Logf("shard 0: p99 %.2f ms, M/M/1 %.2f ms", *p, want)
	}
	if s := run.Shards[1]; s.P99 != nil || s.Failures != 0 || s.Ops != 0 {
		t.Errorf("idle shard 1: p99 %v, %d failures, %d ops; want none", s.P99, s.Failures, s.Ops)
	}
}
