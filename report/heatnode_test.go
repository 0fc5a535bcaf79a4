package report

import (
	"strings"
	"testing"
)

// TestHeatLineNamesListedNode: of 1,500 shards at one load (a tie the size of a
// summary's list), summary.json keeps 1,000; the shards the heat line names, the run's
// hottest (1,400) and the busiest window's (1,300), are among them, so the line gives
// their node rather than node -1 for a shard the list left out.
func TestHeatLineNamesListedNode(t *testing.T) {
	v := VariantSummary{Name: "v", Skew: Skew{HottestShard: 1400, HottestLoad: 0.5, PeakHottestShard: 1300, PeakWindow: "12:00:10", PeakHottestLoad: 0.6}}
	for i := range 1500 {
		v.Shards = append(v.Shards, ShardSummary{ID: i, Node: i % 7, Utilization: 0.5})
	}
	v.bound()
	if len(v.Shards) != MaxListedShards || v.shardByID(1400) == nil || v.shardByID(1300) == nil {
		t.Fatalf("%d shards kept; 1400 kept %v, 1300 kept %v: want %d with both", len(v.Shards), v.shardByID(1400) != nil, v.shardByID(1300) != nil, MaxListedShards)
	}
	for i := 1; i < len(v.Shards); i++ {
		if v.Shards[i].ID <= v.Shards[i-1].ID {
			t.Fatalf("shards not in id order at %d", i)
		}
	}
	if line := heatLine(&v); !strings.HasPrefix(line, "hottest shard 1400 (node 0)") {
		t.Errorf("heat line %q, want shard 1400 on node 0", line)
	}
}
