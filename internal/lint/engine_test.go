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

// engineMethodBound is the most methods the engine itself may have: the work of one group
// of its state is that group's (docs/architecture.md, "Inside the engine").
const engineMethodBound = 80

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

// engineMethods counts the methods declared on *engine in sim's files.
func engineMethods(t *testing.T) int {
	t.Helper()
	n := 0
	for _, f := range packages(t)["sim"].files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			if st, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := st.X.(*ast.Ident); ok && id.Name == "engine" {
					n++
				}
			}
		}
	}
	return n
}

var (
	docFields     = regexp.MustCompile(`\((\d+) fields in all;`)
	simDocFields  = regexp.MustCompile(`The engine struct has (\d+) fields`)
	docMethods    = regexp.MustCompile(`is (\d+) methods\.`)
	simDocMethods = regexp.MustCompile(`and (\d+) methods of its own\.`)
)

// TestEngineMethods holds the engine's own methods to their bound, and the count that
// docs/architecture.md and sim/doc.go give to the code.
func TestEngineMethods(t *testing.T) {
	n := engineMethods(t)
	if n > engineMethodBound {
		t.Errorf("sim's engine has %d methods, more than %d: a method whose work is one group's is that group's", n, engineMethodBound)
	}
	docsSay(t, "methods", n, docMethods, simDocMethods)
}

// TestEngineFields holds the engine struct to its bound, and the count that
// docs/architecture.md and sim/doc.go give to the code.
func TestEngineFields(t *testing.T) {
	n := engineFields(t)
	if n > engineFieldBound {
		t.Errorf("sim's engine struct has %d fields, more than %d: group them by owner", n, engineFieldBound)
	}
	docsSay(t, "fields", n, docFields, simDocFields)
}

// docsSay checks that docs/architecture.md (inDoc) and sim/doc.go (inSim) each give n, how
// many of what the engine has, where their pattern's first group stands.
func docsSay(t *testing.T, what string, n int, inDoc, inSim *regexp.Regexp) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "sim", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		text string
		re   *regexp.Regexp
	}{{"docs/architecture.md", readDoc(t), inDoc}, {"sim/doc.go", string(b), inSim}} {
		m := c.re.FindStringSubmatch(c.text)
		if m == nil {
			t.Errorf("%s does not say how many %s the engine has (%s)", c.file, what, c.re)
			continue
		}
		if got, _ := strconv.Atoi(m[1]); got != n {
			t.Errorf("%s says the engine has %d %s; the code has %d", c.file, got, what, n)
		}
	}
}
