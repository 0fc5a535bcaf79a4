package scenarios_test

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// routingScenario: a range table (its splits cut from the history), and variants with a
// range index, that split, hash, migrate to the hash variant, and move one tenant.
const routingScenario = `name = "routing"
seed = 7
duration = "4s"
window = "1s"
[cluster]
nodes = 4
cores = 2
[table]
history = "10m"
[table.fields]
tenant = { gen = "categorical", values = ["acme", "b", "c", "d"], weights = [3, 1, 1, 1] }
id = { gen = "uniform", n = 100000 }
[keyspace]
scheme = "range"
shards = 8
key = ["tenant", "id"]
[[streams]]
name = "w"
op = "write"
rate = 2000
cost = "0.2ms"
[[streams]]
name = "r"
op = "read"
rate = 500
cost = "0.1ms"
[[variants]]
name = "range"
[[variants]]
name = "indexed"
indexes = [{ name = "by_id", key = ["id"], scheme = "range", shards = 4 }]
[[variants]]
name = "split"
keyspace = { split = { load = 0.01, move = "1s" } }
[[variants]]
name = "hash"
keyspace = { scheme = "hash", key = ["id"] }
[[variants]]
name = "move"
[[variants.actions]]
at = "2s"
migrate = { to = "hash", backfill_rate = 1000 }
[[variants]]
name = "tenant"
[[variants.actions]]
at = "2s"
migrate = { tenant = { field = "tenant", value = "acme" }, backfill_rate = 1000 }
`

// TestRoutingBuiltOnce: the load builds each variant's routing once, for its work estimate
// (its table's shard scheme, a range one's splits cut from a sample of the history), and
// every model and explanation of the variant routes by it: the first model adds only its
// indexes' schemes (a migration to another variant takes that one's), later ones none. Two
// models of a variant, run at once, give the very result of a model built afresh
// (compile.Model).
func TestRoutingBuiltOnce(t *testing.T) {
	before := compile.SchemesBuilt()
	sc, err := scenarios.LoadBytes("routing.toml", []byte(routingScenario), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := compile.SchemesBuilt() - before; got != int64(len(sc.Variants)) {
		t.Errorf("the load built %d schemes, want one a variant (%d)", got, len(sc.Variants))
	}
	for _, v := range sc.Variants {
		n := compile.SchemesBuilt()
		m1 := v.Model()
		if got, want := compile.SchemesBuilt()-n, int64(len(v.Spec.Indexes)); got != want {
			t.Errorf("%s: the first model built %d schemes, want %d (its indexes')", v.Name, got, want)
		}
		n = compile.SchemesBuilt()
		m2 := v.Model()
		v.Explain()
		if got := compile.SchemesBuilt() - n; got != 0 {
			t.Errorf("%s: a second model and an explanation built %d schemes, want none", v.Name, got)
		}
		var a, b *sim.Result
		var wg sync.WaitGroup
		wg.Go(func() { a = sim.Run(m1) })
		wg.Go(func() { b = sim.Run(m2) })
		wg.Wait()
		fresh := sim.Run(compile.Model(v.Spec))
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, fresh) {
			t.Errorf("%s: two models of one routing, or one built afresh, gave different results", v.Name)
		}
		if v.Name == "split" && !slices.ContainsFunc(fresh.Events, func(e sim.Event) bool { return e.Kind == sim.EventSplit }) {
			t.Errorf("split: no shard split; the test no longer covers a run's own splitter")
		}
	}
}

// TestRoutingTooLargeNotKept: a consistent-hash ring (hash = "ring") of 25,000 shards of
// 64 points (1.6 million points, 77 MB at 48 bytes a point) is more than the load keeps
// for a variant's whole command (64 MB of rings: compile.Routings), so the load builds it
// for the estimate and drops it, and each model builds its own, as before routings were
// kept: one scheme at the load, one a model.
func TestRoutingTooLargeNotKept(t *testing.T) {
	src := []byte(routingScenario[:strings.Index(routingScenario, "[[variants]]")])
	before := compile.SchemesBuilt()
	sc, err := scenarios.LoadBytes("routing.toml", src, scenarios.Options{Sets: []string{`keyspace.scheme="hash"`, `keyspace.hash="ring"`, "keyspace.shards=25000"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := compile.SchemesBuilt() - before; got != 1 {
		t.Errorf("the load built %d schemes, want 1", got)
	}
	sc.Variants[0].Model()
	if got := compile.SchemesBuilt() - before; got != 2 {
		t.Errorf("the load and one model built %d schemes, want 2 (the routing is not kept)", got)
	}
}
