package mechanisms

import (
	"reflect"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/scenario"
)

// TestMechanismKeysInDocs generates docs/scenario.md's table of the keys the mechanisms
// declare (scenario.TableKey, scenario.StreamKey) from their declarations, or checks it (make docs
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

// minimalTOML is the smallest valid scenario as a file, for the mechanisms' tests: their
// keys are declared to the decoder, so they are given as text.
const minimalTOML = `name = "min"
duration = "10s"
[cluster]
nodes = 2
[table.fields.id]
gen = "sequence"
[keyspace]
shards = 4
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 10
cost = "1ms"
`

// resolveTOML decodes minimalTOML with extra appended (it may open a table minimalTOML
// leaves implicit: "[table]"), resolves it and returns the resolved form and every problem,
// decoding problems first, as "KEY: MESSAGE".
func resolveTOML(t *testing.T, extra string) (*scenario.Resolved, []string) {
	t.Helper()
	doc, err := tomlx.Parse("x.toml", []byte(minimalTOML+extra))
	if err != nil {
		t.Fatal(err)
	}
	var f scenario.File
	var probs []string
	if err := doc.Decode(doc.Root, "", &f); err != nil {
		for _, e := range err.(tomlx.Errors) {
			probs = append(probs, e.Key+": "+e.Msg)
		}
	}
	s, fe := scenario.Resolve(&f)
	for _, p := range fe {
		probs = append(probs, p.Error())
	}
	return s, probs
}
