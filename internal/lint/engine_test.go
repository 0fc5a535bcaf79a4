package lint

import (
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// engineFieldBound is the most fields the simulator's engine struct may have: its state is
// grouped by owner (docs/architecture.md, "Inside the engine").
const engineFieldBound = 15

// engineFields counts the fields of sim's engine struct, an embedded group counting one.
func engineFields(t *testing.T) int {
	t.Helper()
	p := packages(t)["sim"]
	if p == nil {
		t.Fatal("no package sim")
	}
	n := -1
	for _, f := range p.files {
		ast.Inspect(f, func(x ast.Node) bool {
			ts, ok := x.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "engine" {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				t.Fatal("sim's engine is not a struct")
			}
			n = 0
			for _, fl := range st.Fields.List {
				n += max(len(fl.Names), 1)
			}
			return false
		})
	}
	if n < 0 {
		t.Fatal("sim has no type engine")
	}
	return n
}

var (
	docFields    = regexp.MustCompile(`\((\d+) fields in all;`)
	simDocFields = regexp.MustCompile(`The engine struct has (\d+) fields`)
)

// TestEngineFields holds the engine struct to its bound, and the count that
// docs/architecture.md and sim/doc.go give to the code.
func TestEngineFields(t *testing.T) {
	n := engineFields(t)
	if n > engineFieldBound {
		t.Errorf("sim's engine struct has %d fields, more than %d: group them by owner", n, engineFieldBound)
	}
	b, err := os.ReadFile(filepath.Join(root, "sim", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		text string
		re   *regexp.Regexp
	}{{"docs/architecture.md", readDoc(t), docFields}, {"sim/doc.go", string(b), simDocFields}} {
		m := c.re.FindStringSubmatch(c.text)
		if m == nil {
			t.Errorf("%s does not say how many fields the engine struct has (%s)", c.file, c.re)
			continue
		}
		if got, _ := strconv.Atoi(m[1]); got != n {
			t.Errorf("%s says the engine struct has %d fields; it has %d", c.file, got, n)
		}
	}
}
