package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/build"
	"github.com/shardsim/shardsim/scenarios"
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
		if got := coLocated(tc.node, tc.onNode, loads, 0.05); !slices.Equal(got, tc.want) {
			t.Errorf("coLocated(%v, %v) = %v, want %v", tc.node, tc.onNode, got, tc.want)
		}
	}
	// Loads at twice the median or more count; a median of 0.2 leaves 0.3 out.
	if got := coLocated(0.9, []int{0, 2}, loads, 0.2); got != nil {
		t.Errorf("coLocated with median 0.2 = %v, want nil", got)
	}
}

// explain lists each node's cores and shards, and warns about the node that holds two
// predicted-hot shards, in text and JSON.
func TestExplainWarnsCoLocatedShards(t *testing.T) {
	sc := coLocatedScenario(t)
	e := Explain(&sc.Scenario, []*build.Explanation{sc.Variants[0].Explain()})
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
	for _, want := range []string{"warning: node 0 holds hot shards 0, 1", "node  cores  mean load  peak load  shards", "1 (40."} {
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
