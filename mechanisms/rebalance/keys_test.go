package rebalance_test

import (
	"slices"
	"strings"
	"testing"

	_ "github.com/shardsim/shardsim/mechanisms/limits" // [keyspace.limits], which a rebalance refuses
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	_ "github.com/shardsim/shardsim/mechanisms/migrate" // a migration, which a rebalance refuses
	_ "github.com/shardsim/shardsim/mechanisms/rebalance"
	_ "github.com/shardsim/shardsim/mechanisms/split" // [keyspace.split], which a rebalance refuses
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// TestKeys: an action's add_nodes and rebalance, declared here, resolve into
// scenario.RebalanceSpec and the action's kind and timeline text; an add_nodes action after
// the run's end is checked and dropped. Each bad value is reported at its dotted key, a
// misspelt key with a suggestion, and what a rebalance is not combined with yet is refused
// at its add_nodes.
func TestKeys(t *testing.T) {
	s, probs := mechtest.Resolve(t, "[[actions]]\nat = \"2s\"\nadd_nodes = 2\nrebalance = { rate = 5000, max_cpu = 0.5, read_cost = \"10us\", write_cost = \"20us\", parallel = 2 }\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := scenario.RebalanceSpec{Key: "actions[0]", At: 2 * sim.Second, Count: 2, Rate: 5000, MaxCPU: 0.5, ReadCost: 10 * sim.Microsecond, WriteCost: 20 * sim.Microsecond, Parallel: 2}
	if s.Rebalance == nil || *s.Rebalance != want {
		t.Errorf("rebalance %+v, want %+v", s.Rebalance, want)
	}
	if len(s.Actions) != 1 || s.Actions[0].Setting != "add_nodes" || s.Actions[0].Text != "2 nodes join (nodes 2 to 3); shards move to them at 5,000 rows/s" {
		t.Errorf("actions %+v, want one add_nodes, \"2 nodes join (nodes 2 to 3); shards move to them at 5,000 rows/s\"", s.Actions)
	}
	s, probs = mechtest.Resolve(t, "[[actions]]\nat = \"20s\"\nadd_nodes = 2\nrebalance = { rate = 5000 }\n")
	if len(probs) > 0 || s.Rebalance != nil || len(s.Actions) != 0 {
		t.Errorf("an action after the end: rebalance %+v, actions %+v, problems %q; want none", s.Rebalance, s.Actions, probs)
	}
	const add = "[[actions]]\nat = \"1s\"\nadd_nodes = 2\n"
	for _, c := range []struct{ extra, want string }{
		{add, "actions[0].rebalance: required with add_nodes: rebalance = { rate = ROWS_PER_S }, the rows per second a shard's copy moves"},
		{add + "rebalance = {}\n", "actions[0].rebalance.rate: required: the rows per second a shard's copy moves"},
		{add + "rebalance = { rate = 1.0, max_cpu = 0.0 }\n", "actions[0].rebalance.max_cpu: must be a fraction of a node's cores above 0 and at most 1 (got 0)"},
		{add + "rebalance = { rate = 1.0, parallel = 0 }\n", "actions[0].rebalance.parallel: must be a number of moves at once from 1 to 1024 (got 0)"},
		{add + "rebalance = { rate = 1.0, read_cost = \"0s\" }\n", `actions[0].rebalance.read_cost: must be positive (got "0s")`},
		{add + "rebalance = { rate = 1.0, rat = 2.0 }\n", `actions[0].rebalance.rat: unknown key; did you mean "rate"?`},
		{"[[actions]]\nat = \"1s\"\nadd_nodes = 0\nrebalance = { rate = 1.0 }\n", "actions[0].add_nodes: must be a number of nodes from 1 to 256 (got 0)"},
		{"[[actions]]\nat = \"1s\"\nadd_node = 2\n", `actions[0].add_node: unknown key; did you mean "add_nodes"?`},
		{"[[actions]]\nat = \"1s\"\nnode = 0\ncores = 2\nrebalance = { rate = 1.0 }\n", "actions[0].rebalance: applies only to add_nodes actions"},
		{"[[actions]]\nat = \"1s\"\nnode = 0\ncores = 2\nadd_nodes = 1\n", "actions[0].add_nodes: an action changes one setting, and this one already sets cores: use one [[actions]] entry for each"},
		{"[[actions]]\nat = \"1s\"\n", `actions[0]: says nothing to do: give node with cores or queue_limit, stream with limit, cache = true | false, migrate = { to = "VARIANT", ... }, or add_nodes = N with rebalance = { rate = ROWS_PER_S }`},
		{add + "rebalance = { rate = 1.0 }\n[[actions]]\nat = \"2s\"\nadd_nodes = 1\nrebalance = { rate = 1.0 }\n", "actions[1].add_nodes: a run adds nodes once, and actions[0] already does"},
		{add + "rebalance = { rate = 1.0 }\n[keyspace.split]\nrows = 10\n", "actions[0].add_nodes: cannot be combined with keyspace.split (automatic splits) yet"},
		{add + "rebalance = { rate = 1.0 }\n[keyspace.limits]\nwrite_units = 10.0\n", "actions[0].add_nodes: cannot be combined with partition limits yet"},
	} {
		_, probs := mechtest.Resolve(t, c.extra)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
	src := strings.Replace(mechtest.Minimal, "[cluster]\n", "[cluster]\nreplicas = 1\n", 1) + add + "rebalance = { rate = 1.0 }\n"
	_, probs = mechtest.ResolveFile(t, src)
	if want := "actions[0].add_nodes: cannot be combined with cluster.replicas yet (a follower's node follows the node count)"; !slices.Contains(probs, want) {
		t.Errorf("with replicas: problems %q, want %q among them", probs, want)
	}
}

// TestWithMigration: a rebalance refuses a migration in the same run at its add_nodes,
// whichever action comes first, once every action has been checked (before the problems
// of the sections read after the actions); an action after the run's end is checked and
// dropped, with what it would start, so it is refused with nothing and holds no place.
func TestWithMigration(t *testing.T) {
	const (
		reb  = "[[actions]]\nat = \"1s\"\nadd_nodes = 2\nrebalance = { rate = 1.0 }\n"
		late = "[[actions]]\nat = \"20s\"\nadd_nodes = 2\nrebalance = { rate = 1.0 }\n"
		mig  = "[[actions]]\nat = \"2s\"\nmigrate = { tenant = { field = \"id\", value = 7 }, backfill_rate = 10.0 }\n"
		gone = "[[actions]]\nat = \"30s\"\nmigrate = { tenant = { field = \"id\", value = 7 }, backfill_rate = 10.0 }\n"
		bad  = "[detect]\ntop_k = 0\n"
	)
	topK := "detect.top_k: must be between 1 and 1000 (got 0)"
	for _, c := range []struct {
		src  string
		want []string
	}{
		{reb + mig + bad, []string{"actions[0].add_nodes: cannot be combined with a migration (actions[1].migrate) yet", topK}},
		{mig + reb + bad, []string{"actions[1].add_nodes: cannot be combined with a migration (actions[0].migrate) yet", topK}},
		{gone + reb + mig + bad, []string{"actions[1].add_nodes: cannot be combined with a migration (actions[2].migrate) yet", topK}},
		{late + mig + bad, []string{topK}},
		{reb + gone + bad, []string{topK}},
		{late + reb, nil},
	} {
		src := strings.Replace(mechtest.Minimal, "gen = \"sequence\"\n", "gen = \"uniform\"\nn = 100\n", 1) + c.src
		s, probs := mechtest.ResolveFile(t, src)
		if !slices.Equal(probs, c.want) {
			t.Errorf("%q: problems %q, want %q", c.src, probs, c.want)
		}
		if c.want == nil && (s.Rebalance == nil || s.Rebalance.Key != "actions[1]" || len(s.Actions) != 1) {
			t.Errorf("%q: rebalance %+v, actions %+v; want the one inside the run", c.src, s.Rebalance, s.Actions)
		}
	}
}
