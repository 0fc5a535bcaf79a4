package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMechanismFolderShape holds every mechanism's folder to what docs/architecture.md's
// recipe ("Where a new thing goes", steps 1 to 4) says it holds: keys.go, whose init
// registers with scenario (a call of a scenario.Register* function); its engine side, a
// type with an On(sim.Core) method (sim.Setting); in its tests, the check that its event
// loop allocates nothing per request (a call of mechtest.NoAllocs) and keys_test.go, whose
// checks of its keys resolve them from scenario text (a call of mechtest.Resolve or
// ResolveFile); and the transcript of its story, transcript_test.go calling Transcripts
// (scenariotest's over mechtest's) and at least one testdata/*.txtar. A mechanism is a
// folder under mechanisms/ that the table of packages does not name in a row of its own
// (as it names mechanisms/mechtest).
func TestMechanismFolderShape(t *testing.T) {
	doc := readDoc(t)
	_, table, _ := strings.Cut(doc, "## The packages\n")
	table, _, _ = strings.Cut(table, "\n## ")
	named := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Split(line, "|"); len(cells) >= 5 {
			for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
				named[m[1]] = true
			}
		}
	}
	dirs, err := os.ReadDir(filepath.Join(root, "mechanisms"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() || named["mechanisms/"+d.Name()] {
			continue
		}
		n++
		checkShape(t, d.Name())
	}
	if n < 2 {
		t.Fatalf("found %d mechanisms under mechanisms/: want them all", n)
	}
}

// checkShape reports what mechanism name's folder lacks of the recipe's shape.
func checkShape(t *testing.T, name string) {
	t.Helper()
	dir := filepath.Join(root, "mechanisms", name)
	fset := token.NewFileSet()
	var registers, setting, noAllocs, keys, transcript bool
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		base, test := filepath.Base(path), strings.HasSuffix(path, "_test.go")
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if !test && fn.Recv != nil && fn.Name.Name == "On" && len(fn.Type.Params.List) == 1 && isSelector(fn.Type.Params.List[0].Type, "sim", "Core") {
				setting = true
			}
			ast.Inspect(fn, func(x ast.Node) bool {
				switch {
				case base == "keys.go" && isCallPrefix(x, "scenario", "Register"):
					registers = true
				case test && isCall(x, "mechtest", "NoAllocs"):
					noAllocs = true
				case base == "keys_test.go" && isCallPrefix(x, "mechtest", "Resolve"):
					keys = true
				case base == "transcript_test.go" && fn.Name.Name == "TestTranscripts" && (isCall(x, "scenariotest", "Transcripts") || isCall(x, "mechtest", "Transcripts")):
					transcript = true
				}
				return true
			})
		}
	}
	txtars, _ := filepath.Glob(filepath.Join(dir, "testdata", "*.txtar"))
	for _, miss := range []struct {
		ok   bool
		what string
	}{
		{registers, "keys.go with an init that registers its keys' resolver with scenario (a scenario.Register* call; step 2)"},
		{setting, "its engine side, a type with an On(sim.Core) method that implements sim.Setting (step 1)"},
		{noAllocs, "a test that its event loop allocates nothing per request (a mechtest.NoAllocs call in its _test.go files, as mechanisms/locks' TestLocksAllocateNothing; step 3)"},
		{keys, "keys_test.go, whose tests resolve its keys from scenario text through mechtest.Resolve (or ResolveFile) and check each problem at its dotted key (step 3)"},
		{transcript, "transcript_test.go, whose TestTranscripts calls scenariotest.Transcripts (step 4)"},
		{len(txtars) > 0, "the transcript of its story, a testdata/*.txtar (write the scenario's text in one and run go test ./mechanisms/" + name + " -update; step 4)"},
	} {
		if !miss.ok {
			t.Errorf("mechanisms/%s lacks %s: every mechanism's folder holds what docs/architecture.md's recipe (\"Where a new thing goes\") lists", name, miss.what)
		}
	}
}

// isSelector says whether x is pkg.name.
func isSelector(x ast.Expr, pkg, name string) bool {
	sel, ok := x.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name && isIdent(sel.X, pkg)
}

// isCall says whether x is a call of pkg.name.
func isCall(x ast.Node, pkg, name string) bool {
	call, ok := x.(*ast.CallExpr)
	return ok && isSelector(call.Fun, pkg, name)
}

// isCallPrefix says whether x is a call of a function of pkg whose name begins with prefix.
func isCallPrefix(x ast.Node, pkg, prefix string) bool {
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && strings.HasPrefix(sel.Sel.Name, prefix) && isIdent(sel.X, pkg)
}
