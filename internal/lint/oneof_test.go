package lint

import (
	"go/ast"
	"sort"
	"strings"
	"testing"
)

// structFields returns the field names of every struct type the repository declares,
// by "PACKAGE.Type", and the names among them whose field carries a tag (a file's form:
// the TOML table read, the JSON written). A struct embedded is named by its type.
func structFields(t *testing.T, pkgs map[string]*pkg) (fields map[string][]string, tagged map[string]map[string]bool) {
	t.Helper()
	fields, tagged = map[string][]string{}, map[string]map[string]bool{}
	for path, p := range pkgs {
		for _, f := range p.files {
			ast.Inspect(f, func(x ast.Node) bool {
				ts, ok := x.(*ast.TypeSpec)
				if !ok {
					return true
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					return true
				}
				name := path + "." + ts.Name.Name
				tagged[name] = map[string]bool{}
				for _, fl := range st.Fields.List {
					names := fl.Names
					if len(names) == 0 {
						names = []*ast.Ident{{Name: "embeds " + exprString(fl.Type)}}
					}
					for _, n := range names {
						fields[name] = append(fields[name], n.Name)
						if fl.Tag != nil {
							tagged[name][n.Name] = true
						}
					}
				}
				return true
			})
		}
	}
	return fields, tagged
}

// exprString writes a field's type as the source names it: x, pkg.X, *pkg.X.
func exprString(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(x.X)
	}
	return "?"
}

// twins lists the struct types other than one that declare, untagged, at least min of
// one's fields, with the fields they share.
func twins(fields map[string][]string, tagged map[string]map[string]bool, one string, min int) map[string][]string {
	own := map[string]bool{}
	for _, n := range fields[one] {
		own[n] = true
	}
	out := map[string][]string{}
	for name, fs := range fields {
		var shared []string
		for _, f := range fs {
			if own[f] && !tagged[name][f] {
				shared = append(shared, f)
			}
		}
		if name != one && len(shared) >= min {
			out[name] = shared
		}
	}
	return out
}

func sortedNames(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestOneDetectType holds issue 48's "one Detect type": detection's settings are
// detect.Config from the scenario to the report (its doc comment says so), where there were
// four types of them. No struct type but detect.Config declares two or more of its fields;
// the [detect] table as the file gives it (scenario.Detect, its fields tagged with their
// keys, pointers for "not set") is the file's form, not a type of the settings, and is not
// counted.
func TestOneDetectType(t *testing.T) {
	fields, tagged := structFields(t, packages(t))
	const one = "detect.Config"
	if len(fields[one]) < 2 {
		t.Fatalf("found no struct %s with fields: the test reads detection's settings from it", one)
	}
	found := twins(fields, tagged, one, 2)
	for _, name := range sortedNames(found) {
		t.Errorf("%s declares %s, fields of %s: detection's settings have one type; hold a %s (or read the scenario's, scenario.Variant.Detect) instead of a type of their own", name, strings.Join(found[name], ", "), one, one)
	}
}

// scenarioTwinsLeft are the types known to redeclare scenario.Scenario's fields, each with
// why it is left: an entry goes when the type embeds scenario.Scenario (and the test fails
// on an entry that no longer redeclares them).
var scenarioTwinsLeft = map[string]string{}

// TestOneScenarioDescription holds issue 48's "one Scenario description": the scenario's
// header that the readers of results take (its names, its clock, its claims) is declared
// once, scenario.Scenario, and the types that describe a scenario embed it (the loaded
// scenario, scenarios.Scenario; what the readers of figures know, metrics.Scenario) where
// metrics/describe.go and spec/describe.go once held the same struct. No struct type but
// scenario.Scenario declares more than half of its fields untagged (a tagged field is a
// file's form: the TOML read, the JSON written), and every struct type named Scenario
// outside package scenario embeds scenario.Scenario.
func TestOneScenarioDescription(t *testing.T) {
	fields, tagged := structFields(t, packages(t))
	const one = "scenario.Scenario"
	if len(fields[one]) < 4 {
		t.Fatalf("found no struct %s with fields: the test reads the description's fields from it", one)
	}
	found := twins(fields, tagged, one, len(fields[one])/2+1)
	for _, name := range sortedNames(found) {
		if scenarioTwinsLeft[name] != "" {
			continue
		}
		t.Errorf("%s declares %s, fields of %s: the scenario's description is declared once; embed %s instead", name, strings.Join(found[name], ", "), one, one)
	}
	for name := range scenarioTwinsLeft {
		if found[name] == nil {
			t.Errorf("%s no longer redeclares %s's fields: take it out of scenarioTwinsLeft", name, one)
		}
	}
	n := 0
	for name, fs := range fields {
		if !strings.HasSuffix(name, ".Scenario") || name == one {
			continue
		}
		n++
		embeds := false
		for _, f := range fs {
			embeds = embeds || f == "embeds scenario.Scenario" || f == "embeds *scenario.Scenario"
		}
		if !embeds {
			t.Errorf("%s does not embed %s: a type that describes a scenario embeds the one description rather than redeclaring it", name, one)
		}
	}
	if n == 0 {
		t.Errorf("found no type named Scenario outside package scenario embedding %s: the test looks for them by that name", one)
	}
}
