package diagnose_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// overloadScenario is 4 one-core nodes with a shard each and a queue of 100, offered rate
// writes a second of 1 ms (exponential) for 10 s (seed 3): the cluster serves 4,000 a
// second. id is the key's field, its generator given.
func overloadScenario(rate int, id string) string {
	return fmt.Sprintf(`name = "overload"
seed = 3
duration = "10s"
window = "1s"

[cluster]
nodes       = 4
cores       = 1
queue_limit = 100

[table.fields]
id = %s

[keyspace]
shards = 4
key    = ["id"]

[[streams]]
name = "put"
op   = "write"
rate = %d
cost = "1ms"
`, id, rate)
}

// diagnosisOf runs the scenario and returns its diagnosis (diagnose.Of, as the report
// applies it) and its error rate.
func diagnosisOf(t *testing.T, src string) ([]report.Diagnosis, float64) {
	t.Helper()
	sc, err := scenarios.LoadBytes("overload.toml", []byte(src), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Variants[0]
	s := compile.Describe(&sc.Scenario, []*scenario.Variant{&v.Variant}, nil)
	vs := report.Summarize(s, []report.Run{{Variant: &s.Variants[0], Result: sim.Run(v.Model())}}).Variants[0]
	return vs.Diagnosis, vs.ErrorRate
}

// TestClusterOverloaded: 6,000 writes a second spread evenly (a uniform id over 100,000)
// on a cluster that serves 4,000 keep every node at 100% and fail about a third of the
// writes on full queues: cluster_overloaded, alone, with every node at 90% or more and a
// cure of about 1.5 / 0.7 = 2.1 times the cores. The same cluster at 2,000 a second (half
// its cores) gets no diagnosis, and 3,000 a second of which half go to one key overload
// that key's node alone (its queue fails writes, the others run at about 40%): a hot key,
// not an overloaded cluster. The even overload's message is docs/detection.md's example.
func TestClusterOverloaded(t *testing.T) {
	even := `{ gen = "uniform", n = 100_000 }`
	ds, _ := diagnosisOf(t, overloadScenario(6000, even))
	if len(ds) != 1 || ds[0].Kind != "cluster_overloaded" {
		t.Fatalf("even overload: diagnosis %v, want cluster_overloaded alone", ds)
	}
	ev := ds[0].Evidence
	if ev["least_node_load"] < 0.9 || ev["error_rate"] < 0.25 || ev["capacity_needed"] < 1.8 || ev["capacity_needed"] > 2.4 || ev["nodes_needed"] < 8 {
		t.Errorf("even overload: evidence %v, want every node at 90%% or more, about a third failed, about 2.1 times the cores (8 or 9 nodes)", ev)
	}
	for _, w := range []string{"every node is busy", "add cores or nodes", "shardsim capacity"} {
		if !strings.Contains(ds[0].Message, w) {
			t.Errorf("even overload: message %q, want it to say %q", ds[0].Message, w)
		}
	}

	docmark.Apply(t, &docmark.Parts{Owner: "overload", Blocks: map[string]string{"overload.message": ds[0].Message}}, "../../docs/detection.md")

	if ds, _ := diagnosisOf(t, overloadScenario(2000, even)); len(ds) != 0 {
		t.Errorf("healthy: diagnosis %v, want none", ds)
	}

	ds, errRate := diagnosisOf(t, overloadScenario(3000, `{ gen = "hotspot", n = 100_000, hot_fraction = 0.00001, hot_ops = 0.5 }`))
	if errRate < 0.01 {
		t.Errorf("hot key: error rate %.4f, want the hot node's failures over 1%%, so that only the spread tells the two apart", errRate)
	}
	kinds := []string{}
	for _, d := range ds {
		kinds = append(kinds, d.Kind)
	}
	if len(ds) == 0 || strings.Contains(strings.Join(kinds, " "), "cluster_overloaded") || ds[0].Kind != "hot_key" {
		t.Errorf("hot key: diagnosis %v, want hot_key and no cluster_overloaded", kinds)
	}
}
