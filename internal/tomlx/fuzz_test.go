package tomlx

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// fuzzScenario is a representative scenario shape: nested tables, arrays of
// tables, pointers, maps, fixed arrays, raw values and a custom decoder.
type fuzzScenario struct {
	Name    string  `toml:"name"`
	Seed    *int64  `toml:"seed"`
	Ratio   float32 `toml:"ratio"`
	Cluster struct {
		Nodes int      `toml:"nodes"`
		Cores *uint8   `toml:"cores"`
		Zones []string `toml:"zones"`
		Fast  *bool    `toml:"fast"`
	} `toml:"cluster"`
	Streams []struct {
		Name     string             `toml:"name"`
		Rate     *float64           `toml:"rate"`
		Weights  map[string]float64 `toml:"weights"`
		Keyspace *struct {
			Scheme string  `toml:"scheme"`
			Keys   uint32  `toml:"keys"`
			Hot    []int16 `toml:"hot"`
		} `toml:"keyspace"`
		Phase []phase `toml:"phase"`
	} `toml:"streams"`
	Table    map[string]table  `toml:"table"`
	Variants []map[string]any  `toml:"variants"`
	Extra    any               `toml:"extra"`
	Dist     *dist             `toml:"dist"`
	Pair     [2]uint           `toml:"pair"`
	Labels   map[string]string `toml:"labels"`
}

func FuzzParseDecode(f *testing.F) {
	for _, seed := range []string{
		lineSrc,
		"name = \"x\"\nseed = -1\n[cluster]\nnodes = 3\ncores = 300\n",
		"[[streams]]\nname = \"a\"\nrate = 1\n[[streams.phase]]\nat = 1\n[[streams]]\nkeyspace = { scheme = \"hash\", hot = [1, -70000] }\n",
		"a = [\n  { b = 1 },\n  \"\"\"x\ny\"\"\",\n]\n'q.k' = { x = {\n y = 1 } }\n",
		// Shapes near the guard's bounds (guard.go): nesting, dotted keys, brackets in strings.
		"v = " + strings.Repeat("[", 31) + strings.Repeat("]", 31) + "\n",
		"v = " + strings.Repeat("{a=", 33) + "1" + strings.Repeat("}", 33) + "\n",
		strings.Repeat("a.", 31) + "b = 1\n",
		"s = \"[[[{{{\" # ]]]\nt = '''\n" + strings.Repeat("[", 40) + "\n'''\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse("f.toml", data)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) != 1 || es[0].File != "f.toml" {
				t.Fatalf("Parse error %#v is not Errors with one *Error", err)
			}
			_ = err.Error()
			return
		}
		var sc fuzzScenario
		if err := d.Decode(d.Root, "", &sc); err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("Decode error %#v is not non-empty Errors", err)
			}
			for _, e := range es {
				if e.Line < 0 || e.Line > len(data)+1 {
					t.Errorf("error %v: line out of range", e)
				}
			}
			_ = err.Error()
		}
		for i, v := range sc.Variants {
			var vs fuzzScenario
			_ = d.Decode(Merge(d.Root, v), indexKey("variants", i), &vs)
		}
		for path, line := range d.lines {
			if line < 1 || line > len(data)+1 {
				t.Errorf("Line(%q) = %d: out of range", path, line)
			}
		}
		_ = d.Line(string(data))
		// The line index knows every key of the document (unless it is
		// nested deeper than the scanner follows).
		walkPaths(d.Root, "", 0, func(path string) {
			if !d.known(path) {
				t.Errorf("no line for %q; index: %v", path, d.lines)
			}
		})

		// Merge must not modify its inputs; Set works on the copy.
		m := Merge(d.Root, d.Root)
		_ = Set(m, "streams.0.rate", "2.5")
		_ = Set(m, "cluster.nodes", string(data))
		_ = Set(m, string(data), "1")
		if again, _ := Parse("f.toml", data); again == nil || !sameTOML(d.Root, again.Root) {
			t.Errorf("Merge or Set modified the input document")
		}
	})
}

// sameTOML is reflect.DeepEqual for TOML values, except that NaN equals NaN.
func sameTOML(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameTOML(v, w) {
				return false
			}
		}
		return true
	case []any, []map[string]any:
		xs, _ := asArray(x)
		ys, ok := asArray(b)
		if !ok || reflect.TypeOf(a) != reflect.TypeOf(b) || len(xs) != len(ys) {
			return false
		}
		for i := range xs {
			if !sameTOML(xs[i], ys[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	}
	return reflect.DeepEqual(a, b)
}

// walkPaths calls f with the path of every key and array element of v, down
// to the depth the line scanner follows.
func walkPaths(v any, path string, depth int, f func(string)) {
	if depth > maxDepth/2 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := joinKey(path, k)
			f(p)
			walkPaths(e, p, depth+1, f)
		}
	case []any, []map[string]any:
		elems, _ := asArray(x)
		for i, e := range elems {
			p := indexKey(path, i)
			f(p)
			walkPaths(e, p, depth+1, f)
		}
	}
}
