package sim

import (
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// Each write stream counts the rows it adds to each shard, and the streams' counts add up
// to the shard's: two write streams, one over a uniform key on both shards and one on a
// single key (shard 0 or 1), and a read stream, which counts none. Seed 2, 2 s, 500
// requests/s each.
func TestStreamShardRows(t *testing.T) {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	stream := func(name string, op Op, n uint64) Stream {
		return Stream{Name: name, Op: op, Cost: 100 * Microsecond,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 500}}),
			Fields:   []workload.Generator{workload.NewUniform(n)},
			Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(2), op == Read)}
	}
	r := Run(&Model{Seed: 2, Duration: 2 * Second, Window: Second, Nodes: []Node{{Cores: 2}}, ShardNode: []int{0, 0},
		Streams: []Stream{stream("spread", Write, 1000), stream("one", Write, 1), stream("get", Read, 1000)}})
	spread, one, get := r.Streams[0].ShardRows, r.Streams[1].ShardRows, r.Streams[2].ShardRows
	if get != nil || len(spread) != 2 || len(one) != 2 {
		t.Fatalf("rows by shard: spread %v, one %v, get %v; want two counts for each writer and none for the reader", spread, one, get)
	}
	if (one[0] == 0) == (one[1] == 0) || spread[0] == 0 || spread[1] == 0 {
		t.Errorf("one key's rows %v, want all on one shard; a uniform key's %v, want some on each", one, spread)
	}
	for s := range r.Shards {
		if got := spread[s] + one[s]; got != r.Shards[s].Rows || got == 0 {
			t.Errorf("shard %d: the streams' rows add up to %d, the shard counted %d", s, got, r.Shards[s].Rows)
		}
	}
}
