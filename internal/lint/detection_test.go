package lint

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestDetectionDocCoversEveryRule holds docs/detection.md to the rules and alerts the code
// has, so that a mechanism's rule needs no more than docs/architecture.md's recipe says
// ("Where a new thing goes", step 5): every kind of diagnosis reported in figures/diagnose
// or in a folder under mechanisms/ (the Kind of a Diagnosis literal) has its section
// (### `KIND`); every kind a mechanism's rule reports has its row in the table of
// thresholds (its last column names it); and every alert a mechanism registers
// (diagnose.RegisterStreamAlert) has its row in the table of alerts. A kind is read as the
// code writes it: a string, or a constant of figures/diagnose or of the folder.
func TestDetectionDocCoversEveryRule(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "detection.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	pkgs := packages(t)
	shared := stringConsts(pkgs["figures/diagnose"])
	kinds, alerts := map[string]string{}, map[string]string{} // kind: the package reporting it
	for path, p := range pkgs {
		if path != "figures/diagnose" && !strings.HasPrefix(path, "mechanisms/") {
			continue
		}
		own := stringConsts(p)
		value := func(e ast.Expr) (string, bool) {
			switch e := e.(type) {
			case *ast.BasicLit:
				s, err := strconv.Unquote(e.Value)
				return s, err == nil && e.Kind == token.STRING
			case *ast.Ident:
				s, ok := own[e.Name]
				return s, ok
			case *ast.SelectorExpr:
				if x, ok := e.X.(*ast.Ident); ok && x.Name == "diagnose" {
					s, ok := shared[e.Sel.Name]
					return s, ok
				}
			}
			return "", false
		}
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if !isDiagnosis(n.Type) {
						return true
					}
					for _, el := range n.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Kind") {
							k, ok := value(kv.Value)
							if !ok {
								t.Errorf("%s: a Diagnosis whose Kind is neither a string nor a constant (%s): write the kind so that this test can find its section in docs/detection.md", path, p.fset.Position(kv.Pos()))
								continue
							}
							kinds[k] = path
						}
					}
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "RegisterStreamAlert" && len(n.Args) == 3 {
						k, ok := value(n.Args[1])
						if !ok {
							t.Errorf("%s: an alert whose kind is neither a string nor a constant (%s)", path, p.fset.Position(n.Pos()))
							return true
						}
						alerts[k] = path
					}
				}
				return true
			})
		}
	}
	if len(kinds) == 0 || len(alerts) == 0 {
		t.Fatalf("found %d kinds of diagnosis and %d alerts in figures/diagnose and mechanisms/: want them all", len(kinds), len(alerts))
	}
	thresholds := tableColumn(t, doc, "| constant | value | used by |", -1)
	alertRows := tableColumn(t, doc, "| kind | fires when |", 0)
	for _, k := range sortedKeys(kinds) {
		if !strings.Contains(doc, "\n### `"+k+"`\n") {
			t.Errorf("docs/detection.md has no section ### `%s` for the diagnosis %s reports", k, kinds[k])
		}
		if strings.HasPrefix(kinds[k], "mechanisms/") && !thresholds[k] {
			t.Errorf("docs/detection.md's table of thresholds has no row used by `%s`, the rule of %s", k, kinds[k])
		}
	}
	for _, k := range sortedKeys(alerts) {
		if !alertRows[k] {
			t.Errorf("docs/detection.md's table of alerts has no row for `%s`, the alert %s registers", k, alerts[k])
		}
	}
}

// isDiagnosis reports whether a composite literal's type is diagnose's Diagnosis.
func isDiagnosis(e ast.Expr) bool {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		return isIdent(sel.X, "diagnose") && sel.Sel.Name == "Diagnosis"
	}
	return isIdent(e, "Diagnosis")
}

// stringConsts are the string constants a package declares, by name.
func stringConsts(p *pkg) map[string]string {
	out := map[string]string{}
	if p == nil {
		return out
	}
	for _, f := range p.files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							out[name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}
	return out
}

var backtickedWord = regexp.MustCompile("`([a-z_]+)`")

// tableColumn reads the Markdown table of doc whose header row is header: the backticked
// words of its column col (-1: the last), over every row.
func tableColumn(t *testing.T, doc, header string, col int) map[string]bool {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+header+"\n")
	if !ok {
		t.Fatalf("docs/detection.md has no table %q", header)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(rest, "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		c := col
		if c < 0 {
			c = len(cells) + c
		}
		for _, m := range backtickedWord.FindAllStringSubmatch(cells[c], -1) {
			out[m[1]] = true
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
