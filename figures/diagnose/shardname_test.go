package diagnose

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// TestIndexShardNamed: on a table of 2 shards (0 and 1) with an index by_b of 2 shards
// (engine ids 2 and 3), a hot index shard no other rule explains is named as the run's
// other files name it, by_b/0, not by its engine id 2, a table shard that does not exist.
func TestIndexShardNamed(t *testing.T) {
	r := &sim.Result{Reports: []any{[]metrics.IndexLayout{{Name: "by_b", First: 2, Shards: 2}}}}
	f := &finding{Case: &Case{Run: &metrics.Run{}, HotKeys: []metrics.HotKeys{{Stream: "w", Counted: 100}}}, r: r,
		loads: []float64{0.1, 0.1, 1.0, 0.1}, med: 0.1, explained: map[int]bool{}, out: []Diagnosis{}}
	f.manyKeys()
	if len(f.out) != 1 {
		t.Fatalf("diagnoses %+v, want one hot_shard_many_keys", f.out)
	}
	if d := f.out[0]; d.Subject != "shard by_b/0" || !strings.HasPrefix(d.Message, "shard by_b/0 runs at 100.0%") {
		t.Errorf("%+v, want the index's shard named by_b/0", d)
	}
	if w := f.shardWords(2); !strings.Contains(w, "its shard by_b/0 runs at") {
		t.Errorf("shardWords: %q, want by_b/0", w)
	}
}
