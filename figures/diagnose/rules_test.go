package diagnose

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// TestBurstPeriod: bursts are the runs of windows at or above the line, and their period
// the most common gap between their starts (the shorter on ties).
func TestBurstPeriod(t *testing.T) {
	load := []float64{0.9, 0.1, 0.1, 0.9, 0.9, 0.1, 0.9, 0.1, 0.1, 0.9, 0.1}
	starts, width := burstsAbove(load, 0.5)
	if !slices.Equal(starts, []int{0, 3, 6, 9}) || width != 5 {
		t.Errorf("bursts start at %v over %d windows, want [0 3 6 9] over 5", starts, width)
	}
	if period, repeats := commonGap(starts); period != 3 || repeats != 3 {
		t.Errorf("period %d repeated %d times, want 3 and 3", period, repeats)
	}
	if period, repeats := commonGap([]int{0, 2, 6, 8, 12}); period != 2 || repeats != 2 {
		t.Errorf("gaps 2, 4, 2, 4: period %d (%d times), want the shorter, 2 (2 times)", period, repeats)
	}
}

// TestPredictedWarnings: explain's prediction is judged by the placement rule: node 0
// holds two shards at 40% of its cores at peak (over PlacementShardLoad, under
// ShardHotLoad alone) while the others idle, so it gets a warning; a write stream whose
// partitions all land on one shard gets a note (a node over its cores is Sanity's
// warning). Node 1's shards, at the median, make no placement warning though the node is
// over its cores.
func TestPredictedWarnings(t *testing.T) {
	p := &metrics.Prediction{
		NodeShard: [][]int{{1, 0}, {2, 3, 4, 5}},
		Streams:   []metrics.PlannedStream{{Name: "put", Op: sim.Write, Partitions: 1, Shares: []float64{0, 0, 1, 0, 0, 0}}},
		Shards: []metrics.OfferedLoad{{ID: 0, Node: 0, Peak: 0.4}, {ID: 1, Node: 0, Peak: 0.4},
			{ID: 2, Node: 1, Peak: 0.05}, {ID: 3, Node: 1, Peak: 0.05}, {ID: 4, Node: 1, Peak: 0.05}, {ID: 5, Node: 1, Peak: 0.05}},
		Nodes: []metrics.OfferedLoad{{ID: 0, Cores: 1, Peak: 0.8}, {ID: 1, Cores: 1, Peak: 1.2}},
	}
	notes, warnings := Predicted(p)
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "node 0 holds hot shards 0, 1 (predicted peak 80.0% of its 1 core") {
		t.Errorf("warnings %q, want one for node 0's shards 0 and 1", warnings)
	}
	want := []string{"stream put: 100.0% of its writes go to shard 2 (node 1)"}
	if !slices.Equal(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	// The node over its cores is Sanity's warning, and so is node 0 past a ceiling of 75%.
	sane := Sanity(p, 0.75)
	if len(sane) != 2 || !strings.HasPrefix(sane[0], "node 0 is predicted at 80.0% of its 1 cores at peak: past the 75% ceiling") ||
		!strings.HasPrefix(sane[1], "node 1 is predicted at 120.0% of its 1 cores at peak: past its cores") {
		t.Errorf("sanity warnings %q, want node 0 past the ceiling and node 1 past its cores", sane)
	}
	if got := ShardsOf(p, 0); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("node 0 holds %v, want [0 1] in order", got)
	}
}

// TestRulesInOrder: the rules table applies hot_shard_many_keys last, so that it names
// only the hot shards no other rule explains, and the mechanisms' stream rules (a row's
// lock's hot_row_lock) first, so that the rules after them skip the streams they explain.
func TestRulesInOrder(t *testing.T) {
	if last := rules[len(rules)-1].kinds; last != "hot_shard_many_keys" {
		t.Errorf("the last rule is %q, want hot_shard_many_keys", last)
	}
	if first := rules[0].kinds; first != "the mechanisms' stream rules" {
		t.Errorf("the first rule is %q, want the mechanisms' stream rules (they explain the streams the others skip)", first)
	}
}

// TestSanityCostHint: the stream that offers the most work is named where a node is past
// its cores, with a hint when its cost alone needs more cores than the cluster has but a
// thousandth of it would not (0.6 s typed for 0.6 ms); a cluster within its cores gets no
// warning at all, and a stream that needs more than a thousand clusters gets no hint.
func TestSanityCostHint(t *testing.T) {
	p := &metrics.Prediction{
		Streams: []metrics.PlannedStream{{Name: "get", PeakRate: 40000, Cost: sim.Time(300 * time.Microsecond), Partitions: 1, Work: 12},
			{Name: "put", PeakRate: 8000, Cost: sim.Time(600 * time.Millisecond), Partitions: 1, Work: 4800}},
		Nodes: []metrics.OfferedLoad{{ID: 0, Cores: 4, Peak: 300}, {ID: 1, Cores: 4, Peak: 280}},
	}
	w := Sanity(p, 0)
	if len(w) != 3 || !strings.Contains(w[2], "stream put offers the most work: 8,000/s x 0.6s x 1.0 partitions = 4800.0 cores at its peak rate, of the cluster's 8") ||
		!strings.Contains(w[2], "a cost a thousand times smaller (0.6ms rather than 0.6s) would offer 4.8") {
		t.Errorf("warnings %q, want two nodes and put's cost hint", w)
	}
	p.Streams[1].Work = 48000
	if w := Sanity(p, 0); len(w) != 3 || strings.Contains(w[2], "thousand") {
		t.Errorf("warnings %q: a stream a thousand times too large for the cluster even at a thousandth of its cost gets no hint", w)
	}
	p.Nodes = []metrics.OfferedLoad{{ID: 0, Cores: 4, Peak: 0.8}}
	if w := Sanity(p, 0); w != nil {
		t.Errorf("warnings %q for a node within its cores, want none", w)
	}
}
