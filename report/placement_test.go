package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// coLocatedScenario is testdata/co-located.toml: shards 0 and 1 each take 40% of 2,000
// writes/s of 0.5 ms on node 0's one core, 40% each and 80% together; shards 2 to 7 share
// the other 20%, about 3.3% each.
func coLocatedScenario(t *testing.T) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load("../testdata/co-located.toml", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Two warm shards on one node, neither hot on its own, make a placement diagnosis that
// names the node and both shards; no hot-shard rule fires. 10 simulated seconds, 20,000
// requests: in the node's busiest one-second window each shard's load is 40% give or take
// about 2.5% (800 requests), so each stays under the 50% of a hot shard and over the 25%
// of the placement rule.
func TestDiagnosePlacement(t *testing.T) {
	sc := coLocatedScenario(t)
	v := sc.Variants[0]
	run := Run{Variant: describeVariant(v), Result: sim.Run(v.Model())}
	s := Summarize(describeScenario(sc), []Run{run})
	vs := s.Variants[0]
	if got := kinds(vs.Diagnosis); !slices.Equal(got, []string{"placement"}) {
		t.Fatalf("diagnosis %v, want placement alone:\n%+v", got, vs.Diagnosis)
	}
	d := vs.Diagnosis[0]
	if d.Subject != "node 0" || d.Evidence["node"] != 0 || d.Evidence["shards"] != 2 {
		t.Errorf("subject %q, evidence %v: want node 0 and 2 shards", d.Subject, d.Evidence)
	}
	for _, sh := range []string{"shard_0_load", "shard_1_load"} {
		if l, ok := d.Evidence[sh]; !ok || l < diagnose.PlacementShardLoad || l >= diagnose.ShardHotLoad {
			t.Errorf("evidence %s = %v (present %v), want in [%v, %v)", sh, l, ok, diagnose.PlacementShardLoad, diagnose.ShardHotLoad)
		}
	}
	if l := d.Evidence["node_load"]; l < diagnose.ShardHotLoad || l > 0.95 {
		t.Errorf("node load %v, want about 0.8", l)
	}
	for _, want := range []string{"node 0 runs at", "of its 1 core", "shard 0 at", "shard 1 at", "none of them reaches 50% alone", "co-located", "move", "add nodes"} {
		if !strings.Contains(d.Message, want) {
			t.Errorf("message %q does not say %q", d.Message, want)
		}
	}
	var text strings.Builder
	Text(&text, s)
	if !strings.Contains(text.String(), "- placement: node 0 runs at") || strings.Contains(text.String(), "no hotspot found") {
		t.Errorf("text lacks the placement diagnosis:\n%s", text.String())
	}
}

// A node with one hot shard and an idle one is a hot shard, not placement; a node whose
// two warm shards leave it under the hot threshold is nothing.
func TestCoLocatedRule(t *testing.T) {
	loads := []float64{0.6, 0.05, 0.3, 0.22, 0.05, 0.05}
	for _, tc := range []struct {
		node   float64
		onNode []int
		want   []int
	}{
		{0.65, []int{0, 1}, nil},            // one hot shard
		{0.9, []int{0, 2}, []int{0, 2}},     // a hot shard and a warm one
		{0.52, []int{3, 2}, nil},            // shard 3 under a quarter of the cores
		{0.45, []int{2, 2}, nil},            // the node under the hot threshold
		{0.95, []int{2, 0, 3}, []int{0, 2}}, // sorted, shard 3 left out
	} {
		if got := diagnose.CoLocated(tc.node, tc.onNode, loads, 0.05); !slices.Equal(got, tc.want) {
			t.Errorf("diagnose.CoLocated(%v, %v) = %v, want %v", tc.node, tc.onNode, got, tc.want)
		}
	}
	// Loads at twice the median or more count; a median of 0.2 leaves 0.3 out.
	if got := diagnose.CoLocated(0.9, []int{0, 2}, loads, 0.2); got != nil {
		t.Errorf("coLocated with median 0.2 = %v, want nil", got)
	}
}

// explain lists each node's cores and shards, and warns about the node that holds two
// predicted-hot shards, in text and JSON.
func TestExplainWarnsCoLocatedShards(t *testing.T) {
	sc := coLocatedScenario(t)
	e := Explain(describeScenario(sc, sc.Variants[0].Explain()))
	v := e.Variants[0]
	if len(v.Warnings) != 1 || !strings.HasPrefix(v.Warnings[0], "node 0 holds hot shards 0, 1 (predicted peak 80.") {
		t.Fatalf("warnings %q, want one about node 0 and shards 0, 1", v.Warnings)
	}
	n0 := v.NodeUse[0]
	if n0.ID != 0 || n0.Cores != 1 || !slices.Equal(n0.Shards, []int{0, 1}) {
		t.Errorf("node 0: %+v, want 1 core and shards 0, 1", n0)
	}
	var text strings.Builder
	ExplainText(&text, e)
	for _, want := range []string{"warning: node 0 holds hot shards 0, 1", "node  cores  mean load  peak load     at  shards", "1 (40."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text does not say %q:\n%s", want, text.String())
		}
	}
	js, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"cores":1,"shards":[0,1]`) || !strings.Contains(string(js), `"warnings":["node 0 holds hot shards 0, 1`) {
		t.Errorf("JSON lacks node 0's shards or the warning: %s", js)
	}
}
