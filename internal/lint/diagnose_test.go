package lint

import (
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// mechanismNames reads, from the sources of the packages under mechanisms/, the names of
// the waits they report (the name given to NewWaits), the kinds of the diagnoses their
// rules make (Kind: in a Diagnosis literal) and the names they register their rules and
// alerts under (RegisterRule's, RegisterStreamAlert's: a split chain's
// "monotonic_key (split chain)", whose kind, diagnose.MonotonicKey, is the writes' rule's
// too), each with the package that names it.
func mechanismNames(pkgs map[string]*pkg) map[string]string {
	names := map[string]string{}
	for path, p := range pkgs {
		if !strings.HasPrefix(path, "mechanisms/") {
			continue
		}
		for _, f := range p.files {
			ast.Inspect(f, func(x ast.Node) bool {
				if s, ok := mechanismName(x); ok {
					names[s] = path
				}
				return true
			})
		}
	}
	return names
}

// mechanismName returns the wait's name of a NewWaits(i, NAME, ...) call, the name of a
// RegisterRule(RANK, NAME, ...) or RegisterStreamAlert(RANK, KIND, ...) call, or the kind
// of a KIND: ... field in a Diagnosis literal.
func mechanismName(x ast.Node) (string, bool) {
	switch x := x.(type) {
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && len(x.Args) > 1 {
			switch sel.Sel.Name {
			case "NewWaits", "RegisterRule", "RegisterStreamAlert":
				return stringLit(x.Args[1])
			}
		}
	case *ast.CompositeLit:
		if sel, ok := x.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Diagnosis" {
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Kind") {
					return stringLit(kv.Value)
				}
			}
		}
	}
	return "", false
}

func isIdent(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

// stringLit returns the value of a string literal.
func stringLit(x ast.Expr) (string, bool) {
	lit, ok := x.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// TestDiagnoseNamesNoMechanism holds docs/architecture.md's "Where a new thing goes" for
// a mechanism's diagnosis rule to the code: the rule is in the mechanism's folder,
// registered with figures/diagnose, whose code names neither a wait a mechanism reports,
// nor a diagnosis a mechanism's rule makes, nor a rule or an alert a mechanism registers.
func TestDiagnoseNamesNoMechanism(t *testing.T) {
	pkgs := packages(t)
	names := mechanismNames(pkgs)
	if len(names) < 5 {
		t.Fatalf("found %d waits, diagnoses, rules and alerts named under mechanisms/ (%v); want the page latch's, the pool's and their rules' at least", len(names), names)
	}
	d := pkgs["figures/diagnose"]
	if d == nil {
		t.Fatal("no package figures/diagnose")
	}
	var found []string
	for _, f := range d.files {
		ast.Inspect(f, func(x ast.Node) bool {
			if s, ok := stringLit(asExpr(x)); ok && names[s] != "" {
				found = append(found, d.fset.Position(x.Pos()).String()+" names "+strconv.Quote(s)+", "+names[s]+"'s")
			}
			return true
		})
	}
	sort.Strings(found)
	for _, s := range found {
		t.Errorf("%s: a mechanism's wait, diagnosis, rule or alert belongs to its folder, whose rules and alerts register with diagnose (docs/architecture.md, \"Where a new thing goes\")", s)
	}
}

// asExpr returns x as an expression, nil when it is none.
func asExpr(x ast.Node) ast.Expr {
	e, _ := x.(ast.Expr)
	return e
}
