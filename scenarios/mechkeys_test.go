package scenarios_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/scenario"
)

// TestMechanismKeysInDocs generates docs/scenario.md's table of the keys the mechanisms
// declare (every mechanism package the loader imports) (scenario.TableKey, scenario.StreamKey) from their declarations, or checks it (make docs
// rewrites it), and checks that each key is decoded by the table the docs put it in.
func TestMechanismKeysInDocs(t *testing.T) {
	tables := map[string]reflect.Type{"[table]": reflect.TypeFor[scenario.Table](), "[[streams]]": reflect.TypeFor[scenario.Stream]()}
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
		b.WriteString("| `" + k.Table + "` | `" + k.Name + "` | " + k.Default + " | " + k.Meaning + " |\n")
	}
	docmark.Apply(t, &docmark.Parts{Owner: "mechkeys", Blocks: map[string]string{"mechkeys.table": b.String()}}, "../docs/scenario.md")
}

// TestMechanismKeysAreTyped extends scenario's TestFileHoldsNoUntypedValue to the keys the
// mechanisms declare: each decodes into a type of its own, never an interface.
func TestMechanismKeysAreTyped(t *testing.T) {
	for _, table := range []reflect.Type{reflect.TypeFor[scenario.File](), reflect.TypeFor[scenario.Cluster](), reflect.TypeFor[scenario.Table](), reflect.TypeFor[scenario.Keyspace](), reflect.TypeFor[scenario.Stream]()} {
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
