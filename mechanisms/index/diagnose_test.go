package index

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
)

// TestHotIndexPartition: an index of 4 shards (ids 2 to 5, after the table's 2) whose
// shard 3 was asked 70% of the index's writes. It is named when it refused more than 1% of
// them (an async index: the table's writes failed with them), or when it is hot in the
// busiest window; a partition at its fair share, or one that neither refused nor ran hot,
// is not. The named shard is explained: hot_shard_many_keys, last, names it only when the
// rule did not (the rule is registered, and placed before it).
func TestHotIndexPartition(t *testing.T) {
	layout := metrics.IndexLayout{Name: "by_status", First: 2, Shards: 4, Async: true}
	cases := []struct {
		name               string
		share              float64
		failures           int64
		load               float64
		want, wantRefusing bool
	}{
		{"refusing", 0.7, 300, 0.2, true, true},
		{"hot", 0.7, 0, 0.8, true, false},
		{"refused 1% exactly, cool", 0.7, 7, 0.2, false, false},
		{"even", 0.25, 300, 0.8, false, false},
	}
	for _, c := range cases {
		x := metrics.Index{IndexLayout: layout, Hottest: 3, HottestRows: 700 - c.failures, HottestFailures: c.failures, Share: c.share}
		r := &sim.Result{Window: sim.Minute, Windows: 1, Shards: make([]sim.ShardResult, 6), Reports: []any{[]metrics.IndexLayout{layout}}}
		run := &metrics.Run{Indexes: []metrics.Index{x}, PeakLoads: []float64{0.1, 0.1, 0.1, c.load, 0.1, 0.1}}
		var found []diagnose.Diagnosis
		manyKeys := false
		for _, d := range mechtest.DiagnoseRun(r, run, []metrics.HotKeys{{Stream: "put", Counted: 100}}) {
			switch d.Kind {
			case "hot_index_partition":
				found = append(found, d)
			case "hot_shard_many_keys":
				manyKeys = manyKeys || d.Subject == "shard by_status/1"
			}
		}
		if got := len(found) == 1; got != c.want {
			t.Errorf("%s: diagnoses %+v, want hot_index_partition %v", c.name, found, c.want)
			continue
		}
		if hot := c.load >= diagnose.ShardHotLoad; manyKeys != (hot && !c.want) {
			t.Errorf("%s: hot_shard_many_keys names the partition: %v, want %v (hot and not explained)", c.name, manyKeys, hot && !c.want)
		}
		if !c.want {
			continue
		}
		d := found[0]
		if d.Kind != "hot_index_partition" || d.Subject != "index by_status" || !strings.Contains(d.Message, "partition by_status/1 takes 70.0%") {
			t.Errorf("%s: %+v, want index by_status's partition by_status/1 at 70.0%%", c.name, d)
		}
		if refusing := strings.Contains(d.Message, "pushes back on the table"); refusing != c.wantRefusing {
			t.Errorf("%s: %q; says the index pushed back: %v, want %v", c.name, d.Message, refusing, c.wantRefusing)
		}
		if d.Evidence["refused"] != float64(c.failures) || d.Evidence["shard"] != 3 || d.Evidence["median_load"] != 0.1 {
			t.Errorf("%s: evidence %v, want refused %d, shard 3, the index's median load 0.1", c.name, d.Evidence, c.failures)
		}
	}
}
