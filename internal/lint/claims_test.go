package lint

import (
	"bytes"
	"go/ast"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestNoPackageOverATenth holds docs/architecture.md's "No package but `sim` holds more than
// a tenth of the code": the lines of every package's non-test Go files, against the
// module's.
func TestNoPackageOverATenth(t *testing.T) {
	if !strings.Contains(readDoc(t), "No package but `sim` holds more than a tenth of the code.") {
		t.Fatal("docs/architecture.md no longer makes the claim this test holds: change both")
	}
	lines := map[string]int{}
	total := 0
	for path, p := range packages(t) {
		for _, f := range p.files {
			src, err := os.ReadFile(p.fset.File(f.Pos()).Name())
			if err != nil {
				t.Fatal(err)
			}
			n := bytes.Count(src, []byte("\n"))
			lines[path] += n
			total += n
		}
	}
	if total < 10000 {
		t.Fatalf("counted %d lines in all: the walk missed the module", total)
	}
	names := make([]string, 0, len(lines))
	for name := range lines {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return lines[names[i]] > lines[names[j]] })
	for _, name := range names {
		if name != "sim" && lines[name]*10 > total {
			t.Errorf("package %s holds %d of the module's %d lines, over a tenth", name, lines[name], total)
		}
	}
	t.Logf("largest: %s %d, %s %d of %d lines", names[0], lines[names[0]], names[1], lines[names[1]], total)
}

// saltName is a name that holds a count of salt buckets.
var saltName = regexp.MustCompile(`(?i)salt`)

// TestSaltedAskedOnce holds "whether a key design is salted is asked of keyspace.Salted
// alone": no code outside that function compares a salt count with 1 or 2, the test it
// makes.
func TestSaltedAskedOnce(t *testing.T) {
	if !strings.Contains(readDoc(t), "is asked of `keyspace.Salted`") {
		t.Fatal("docs/architecture.md no longer makes the claim this test holds: change both")
	}
	checked := 0
	for path, p := range packages(t) {
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				if fd, ok := n.(*ast.FuncDecl); ok && fd.Name.Name == "Salted" && path == "keyspace" {
					return false // the one place that asks
				}
				b, ok := n.(*ast.BinaryExpr)
				if !ok || !isComparison(b.Op) {
					return true
				}
				for _, side := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
					if lit, ok := side[1].(*ast.BasicLit); ok && lit.Kind == token.INT && (lit.Value == "1" || lit.Value == "2") && saltName.MatchString(lastName(side[0])) {
						t.Errorf("%s: %s compares a salt count with %s: ask keyspace.Salted", p.fset.Position(b.Pos()), lastName(side[0]), lit.Value)
					}
				}
				checked++
				return true
			})
		}
	}
	if checked < 100 {
		t.Fatalf("saw %d comparisons: the walk missed the module", checked)
	}
}

func isComparison(op token.Token) bool {
	switch op {
	case token.GTR, token.GEQ, token.LSS, token.LEQ, token.EQL, token.NEQ:
		return true
	}
	return false
}

// lastName is the name an expression ends in: x, s.Salt, *p.salt, f(x).Salt.
func lastName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.StarExpr:
		return lastName(e.X)
	case *ast.ParenExpr:
		return lastName(e.X)
	}
	return ""
}

// TestLoaderImportsEveryMechanism: a mechanism registers its keys, resolver and rules from
// its package's init, so the loader (scenarios) must import every mechanism's folder,
// directly or through another. A mechanism's own tests import it, so they pass without the
// loader's import while the command never sees the mechanism's keys: this is the test that
// fails.
func TestLoaderImportsEveryMechanism(t *testing.T) {
	pkgs := packages(t)
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		if q := pkgs[p]; q != nil {
			for dep := range q.imports {
				visit(dep)
			}
		}
	}
	visit("scenarios")
	n := 0
	for p := range pkgs {
		if !strings.HasPrefix(p, "mechanisms/") || p == "mechanisms/mechtest" {
			continue
		}
		n++
		if !seen[p] {
			t.Errorf("%s is not imported by the loader (scenarios/load.go's imports): the command would not know its keys", p)
		}
	}
	if n < 10 {
		t.Fatalf("found %d mechanisms' folders: the walk missed them", n)
	}
}

// TestLoaderImportsMechanismsBlank holds docs/architecture.md's "Outside the folder, one
// line: the loader's blank import of the package": the loader (scenarios' non-test files)
// imports a mechanism's folder only for its init, never to call what it exports, so that
// what a mechanism does at load time (linking its variants, say) is said through the
// hooks of `scenario` and the loader names no mechanism.
func TestLoaderImportsMechanismsBlank(t *testing.T) {
	if !strings.Contains(readDoc(t), "Outside the folder, one line: the loader's blank import of the package") {
		t.Fatal("docs/architecture.md no longer makes the claim this test holds: change both")
	}
	p := packages(t)["scenarios"]
	if p == nil {
		t.Fatal("no package scenarios")
	}
	n := 0
	for _, f := range p.files {
		for _, im := range f.Imports {
			q, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(q, module+"mechanisms/") {
				continue
			}
			n++
			if im.Name == nil || im.Name.Name != "_" {
				t.Errorf("%s: the loader imports %s by name: import it blank (_) and say what the loader needs of it through a hook of scenario", p.fset.Position(im.Pos()), q)
			}
		}
	}
	if n < 10 {
		t.Fatalf("found %d imports of mechanisms in scenarios: the walk missed them", n)
	}
}
