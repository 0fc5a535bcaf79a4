package split

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
)

// TestSplitChain: shard 0 split into 1, 1 into 2 and 2 into 3, each split of the shard the
// previous one created, is a chain of splitChainLength (3): the splits chase a key that
// grows with time, and the rule (registered) names the first write stream's key,
// monotonic_key, and explains every shard, so hot_shard_many_keys, last, names none. Two
// splits in a row are no chain: shard 3, hot, is then hot_shard_many_keys'.
func TestSplitChain(t *testing.T) {
	diagnoses := func(splits int) []diagnose.Diagnosis {
		r := &sim.Result{Window: sim.Minute, Windows: 1, Shards: []sim.ShardResult{{Parent: -1}, {Parent: 0}, {Parent: 1}, {Parent: 2}}}
		for s := 4 - splits; s < 4; s++ {
			r.Events = append(r.Events, sim.Event{Kind: sim.EventSplit, Shard: s})
		}
		run := &metrics.Run{PeakLoads: []float64{0.1, 0.1, 0.1, 0.9},
			Streams: []metrics.Stream{{Name: "get", Op: sim.Read}, {Name: "put", Op: sim.Write}, {Name: "put2", Op: sim.Write}}}
		return mechtest.DiagnoseRun(r, run, []metrics.HotKeys{{Stream: "put", Counted: 100}})
	}
	d := diagnoses(3)
	if len(d) != 1 || d[0].Kind != "monotonic_key" || d[0].Subject != "put" || d[0].Evidence["chain"] != 3 || d[0].Evidence["shard"] != 3 ||
		!strings.Contains(d[0].Message, "3 splits in a row, from shard 1 on") {
		t.Errorf("3 splits in a row: %+v, want monotonic_key of put alone, a chain of 3 from shard 1, shard 3 hottest", d)
	}
	if d := diagnoses(2); len(d) != 1 || d[0].Kind != "hot_shard_many_keys" || d[0].Subject != "shard 3" {
		t.Errorf("2 splits in a row: %+v, want hot_shard_many_keys of shard 3 alone", d)
	}
}
