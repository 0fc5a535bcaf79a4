package lint

import (
	"go/ast"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// mechanismFieldsAlso are scenario.Resolved's fields that a mechanism resolves into whose
// names hold no mechanism's word, each with its mechanism.
var mechanismFieldsAlso = map[string]string{
	"ReadAny":   "the followers' read_from (mechanisms/replicas)",
	"ApplyCost": "the followers' apply_cost (mechanisms/replicas)",
}

// scenarioFieldsOwn are scenario.Resolved's fields whose names hold a mechanism's word and
// are the scenario's own, each with why.
var scenarioFieldsOwn = map[string]string{
	"Actions": "[[actions]], the scenario's timeline: each action's setting is a mechanism's, through scenario.ActionSpec",
	"Claims":  "[[claims]], what the scenario claims of its figures, not a job queue's claims",
}

// scenarioReadsAllowed are scenario's functions that read a mechanism's field of
// Resolved and stay, each with why.
var scenarioReadsAllowed = map[string]string{}

// TestScenarioBranchesOnNoMechanism holds docs/architecture.md's "scenario keeps the
// resolved forms of some mechanisms' keys, and branches on none" to the code: scenario
// keeps the fields a mechanism resolves into (Resolved.Migration, Split, Replicas, ...:
// a mechanism's own type cannot be a field of Resolved without an import cycle), and no
// function of its reads one, but those of scenarioReadsAllowed. What a mechanism's
// settings mean to the rest (dropped with an action after the run's end, refused
// together, windows held, cleared as changing nothing) it says through the hooks it
// registers from its folder.
func TestScenarioBranchesOnNoMechanism(t *testing.T) {
	p := packages(t)["scenario"]
	if p == nil {
		t.Fatal("no package scenario")
	}
	fields := mechanismFields(t, p, coreWords(t))
	used := map[string]bool{}
	said := map[string]bool{}
	for _, f := range p.files {
		file := filepath.Base(p.fset.Position(f.Package).Filename)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(x ast.Node) bool {
				sel, ok := x.(*ast.SelectorExpr)
				if !ok || !slices.Contains(fields, sel.Sel.Name) {
					return true
				}
				if scenarioReadsAllowed[fd.Name.Name] != "" {
					used[fd.Name.Name] = true
				} else if !said[fd.Name.Name+"."+sel.Sel.Name] {
					said[fd.Name.Name+"."+sel.Sel.Name] = true
					t.Errorf("scenario's %s (%s) reads %s, a mechanism's field of Resolved: let the mechanism say what it means through a hook it registers from its folder (scenario/mechanism.go)", fd.Name.Name, file, sel.Sel.Name)
				}
				return true
			})
		}
	}
	for n := range scenarioReadsAllowed {
		if !used[n] {
			t.Errorf("scenarioReadsAllowed lets %s stay, which reads no mechanism's field now: take it off", n)
		}
	}
}

// mechanismFields are scenario.Resolved's fields that a mechanism resolves into: those
// whose names hold a mechanism's word, and mechanismFieldsAlso.
func mechanismFields(t *testing.T, p *pkg, words []string) []string {
	t.Helper()
	var out []string
	for _, f := range p.files {
		ast.Inspect(f, func(x ast.Node) bool {
			ts, ok := x.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "Resolved" {
				return true
			}
			for _, fl := range ts.Type.(*ast.StructType).Fields.List {
				for _, n := range fl.Names {
					if scenarioFieldsOwn[n.Name] != "" {
						continue
					}
					if mechanismFieldsAlso[n.Name] != "" || slices.ContainsFunc(words, func(w string) bool { return holdsWord(n.Name, w) }) {
						out = append(out, n.Name)
					}
				}
			}
			return false
		})
	}
	sort.Strings(out)
	for _, want := range []string{"ApplyCost", "Indexes", "Limits", "Migration", "ReadAny", "Rebalance", "Replicas", "Split"} {
		if !slices.Contains(out, want) {
			t.Errorf("scenario.Resolved's mechanisms' fields %s miss %s", strings.Join(out, ", "), want)
		}
	}
	return out
}

// TestCapacityReadsNoMechanism holds the capacity planner to asking the mechanisms, never
// reading their settings: runs/capacity reads no field of scenario.Resolved a mechanism
// resolves into (mechanismFields; a call of a method of that name, as a replication's
// Split, is no read of one); what a mechanism means to the utilization
// law it says from its folder (scenario.RegisterLoadChange, scenario.RegisterServiceAdded).
func TestCapacityReadsNoMechanism(t *testing.T) {
	ps := packages(t)
	fields := mechanismFields(t, ps["scenario"], coreWords(t))
	p := ps["runs/capacity"]
	if p == nil {
		t.Fatal("no package runs/capacity")
	}
	for _, f := range p.files {
		file := filepath.Base(p.fset.Position(f.Package).Filename)
		called := map[ast.Expr]bool{} // a method's call (a seed's Split()), no field read
		ast.Inspect(f, func(x ast.Node) bool {
			if call, ok := x.(*ast.CallExpr); ok {
				called[call.Fun] = true
			}
			if sel, ok := x.(*ast.SelectorExpr); ok && !called[sel] && slices.Contains(fields, sel.Sel.Name) {
				t.Errorf("runs/capacity's %s:%d reads %s, a mechanism's field of scenario.Resolved: let the mechanism answer through a hook it registers from its folder (scenario/mechanism.go)", file, p.fset.Position(sel.Pos()).Line, sel.Sel.Name)
			}
			return true
		})
	}
}
