package compile_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
)

// mechanismOrder is the order of the settings compile gives a model that are not the
// recipe mechanisms' (those stand between split and the operator's, in their resolvers'
// order): the followers', the rebalance's, the migration's, the indexes', the splits' own
// and, last, the operator's actions.
var mechanismOrder = []string{"replicas.Replicas", "*rebalance.Rebalance", "*migrate.Migration", "*index.Indexes", "split.Split", "", "operator.Actions"}

// rankOf is a setting's place in mechanismOrder ("" for a recipe mechanism's).
func rankOf(x any) int {
	if i := slices.Index(mechanismOrder, fmt.Sprintf("%T", x)); i >= 0 {
		return i
	}
	return slices.Index(mechanismOrder, "")
}

// TestModelMechanismsOrder pins the order of a model's mechanisms (sim.Model.Mechanisms),
// which the engine turns on in turn: every variant of every built-in scenario, and
// variants that put together what can be put together (followers, a migration to another
// variant or of a tenant, splits, an index, a rebalance, a recipe mechanism and operator
// actions), keep the settings in mechanismOrder, and each one given is there.
func TestModelMechanismsOrder(t *testing.T) {
	check := func(name string, sc *scenarios.Scenario, want map[string][]string) {
		t.Helper()
		for _, v := range sc.Variants {
			m := compile.Model(v.Spec)
			var got []string
			for i, x := range m.Mechanisms {
				got = append(got, fmt.Sprintf("%T", x))
				if i > 0 && rankOf(x) < rankOf(m.Mechanisms[i-1]) {
					t.Errorf("%s, %s: mechanisms %v: %T after %T", name, v.Name, got, x, m.Mechanisms[i-1])
				}
			}
			if w, ok := want[v.Name]; ok && !slices.Equal(got, w) {
				t.Errorf("%s, %s: mechanisms %v, want %v", name, v.Name, got, w)
			}
		}
	}
	for _, name := range scenarios.BuiltinNames() {
		sc, err := scenarios.Load(name, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		check(name, sc, nil)
	}
	sc, err := scenarios.LoadBytes("all.toml", []byte(allParts), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("all.toml", sc, map[string][]string{
		"move":   {"replicas.Replicas", "*migrate.Migration", "pool.Pool", "operator.Actions"},
		"split":  {"replicas.Replicas", "split.Split", "pool.Pool", "operator.Actions"},
		"tenant": {"replicas.Replicas", "*migrate.Migration", "pool.Pool", "operator.Actions"},
		"gsi":    {"*index.Indexes", "pool.Pool", "operator.Actions"},
		"grow":   {"*rebalance.Rebalance", "pool.Pool", "operator.Actions"},
	})
}

const allParts = `name = "all"
duration = "1m"
[cluster]
nodes = 4
cores = 2
[table]
history = "10m"
[table.fields]
tenant = { gen = "uniform", n = 100 }
id = { gen = "uniform", n = 100000 }
[keyspace]
shards = 8
key = ["tenant", "id"]
[[streams]]
name = "w"
op = "write"
rate = 100
cost = "1ms"
pool = 4
[[streams]]
name = "r"
op = "read"
rate = 100
cost = "0.5ms"
[[actions]]
at = "20s"
node = 0
cores = 4

[[variants]]
name = "to"
keyspace = { shards = 16 }

[[variants]]
name = "move"
cluster = { nodes = 4, cores = 2, replicas = 1 }
[[variants.actions]]
at = "10s"
migrate = { to = "to", backfill_rate = 1000 }

[[variants]]
name = "split"
cluster = { nodes = 4, cores = 2, replicas = 1 }
keyspace = { shards = 8, key = ["tenant", "id"], split = { load = 0.8, max_shards = 16 } }

[[variants]]
name = "tenant"
cluster = { nodes = 4, cores = 2, replicas = 1 }
[[variants.actions]]
at = "10s"
migrate = { tenant = { field = "tenant", value = 3 }, shards = 1, backfill_rate = 1000 }

[[variants]]
name = "gsi"
[[variants.indexes]]
name = "by_id"
key = ["id"]
shards = 4

[[variants]]
name = "grow"
[[variants.actions]]
at = "10s"
add_nodes = 2
rebalance = { rate = 1000 }
`

// TestModelPartsRanked: the registered model parts each have a rank and a build order of
// their own, so that neither the settings' order nor the notes' depends on the order in
// which the packages' init functions ran; no rank is 0, the recipe mechanisms' place.
func TestModelPartsRanked(t *testing.T) {
	ranks, builds := map[int]string{}, map[int]string{}
	parts := scenario.ModelParts()
	if len(parts) < 6 {
		t.Fatalf("%d model parts registered; want the followers', a rebalance's, a migration's, the indexes', the splits' and the operator's at least", len(parts))
	}
	for _, p := range parts {
		if p.Rank == 0 {
			t.Errorf("model part %s has rank 0, the recipe mechanisms' place", p.Name)
		}
		if o, dup := ranks[p.Rank]; dup {
			t.Errorf("model parts %s and %s have one rank, %d", o, p.Name, p.Rank)
		}
		if o, dup := builds[p.Build]; dup {
			t.Errorf("model parts %s and %s have one build order, %d", o, p.Name, p.Build)
		}
		ranks[p.Rank], builds[p.Build] = p.Name, p.Name
	}
}
