package scenarios_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
)

// TestMechanismKeysInDocs generates docs/scenario.md's table of the keys the mechanisms
// declare (scenario.TableKey, scenario.StreamKey, scenario.FileKey; every mechanism the loader imports) from
// their declarations, or checks it (make docs rewrites it), and checks that each key is
// decoded by the table the docs put it in.
func TestMechanismKeysInDocs(t *testing.T) {
	tables := map[string]reflect.Type{"top level": reflect.TypeFor[scenario.File](), "[cluster]": reflect.TypeFor[scenario.Cluster](), "[table]": reflect.TypeFor[scenario.Table](), "[keyspace]": reflect.TypeFor[scenario.Keyspace](), "[[streams]]": reflect.TypeFor[scenario.Stream](), "[[actions]]": reflect.TypeFor[scenario.Action]()}
	var b strings.Builder
	b.WriteString("| table | key | default | meaning |\n|---|---|---|---|\n")
	for _, k := range scenario.MechanismKeys {
		ty, ok := tables[k.Table]
		if !ok {
			t.Errorf("key %s is declared in %s, which the docs' table does not know", k.Name, k.Table)
			continue
		}
		if _, ok := tomlx.ExtensionsOf(ty)[k.Name]; !ok {
			t.Errorf("key %s of %s is not declared to the decoder", k.Name, k.Table)
		}
		where := "`" + k.Table + "`"
		if k.Table == "top level" {
			where = k.Table
		}
		b.WriteString("| " + where + " | `" + k.Name + "` | " + k.Default + " | " + k.Meaning + " |\n")
	}
	docmark.Apply(t, &docmark.Parts{Owner: "mechkeys", Blocks: map[string]string{"mechkeys.table": b.String()}}, "../docs/scenario.md")
}

// TestMechanismKeysAreTyped extends scenario's TestFileHoldsNoUntypedValue to the keys the
// mechanisms declare: each decodes into a type of its own, never an interface.
func TestMechanismKeysAreTyped(t *testing.T) {
	for _, table := range []reflect.Type{reflect.TypeFor[scenario.File](), reflect.TypeFor[scenario.Cluster](), reflect.TypeFor[scenario.Table](), reflect.TypeFor[scenario.Keyspace](), reflect.TypeFor[scenario.Stream](), reflect.TypeFor[scenario.Action]()} {
		for name, ty := range tomlx.ExtensionsOf(table) {
			for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
				ty = ty.Elem()
			}
			if ty.Kind() == reflect.Interface {
				t.Errorf("%s.%s decodes into an interface (%s)", table.Name(), name, ty)
			}
		}
	}
}

// TestMechanismOrder: the mechanisms' settings come in the order of their packages' import
// paths (latch, locks, pool, queue), whatever the order of their keys in the file, so that
// explain's notes and a stream's waits keep their order (docs/architecture.md, "Where a
// new thing goes").
func TestMechanismOrder(t *testing.T) {
	const src = `name = "order"
duration = "10s"
[cluster]
nodes = 1
[table]
page_latch = "20us"
[table.fields]
id = { gen = "sequence" }
[keyspace]
shards = 1
key = ["id"]
[[streams]]
name = "claim"
op = "write"
clients = 2
think = "1ms"
cost = "1ms"
lock = "1ms"
claim = "oldest"
[[streams]]
name = "w"
op = "write"
rate = 10
cost = "1ms"
pool = 4
`
	sc, err := scenarios.LoadBytes("order.toml", []byte(src), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sc.Variants[0].Spec.Mechanisms {
		got = append(got, fmt.Sprintf("%T", s))
	}
	if want := []string{"latch.PageLatch", "locks.RowLocks", "pool.Pool", "queue.JobClaims"}; !slices.Equal(got, want) {
		t.Errorf("settings in the order %q, want %q", got, want)
	}
}
