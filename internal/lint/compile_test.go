package lint

import (
	"go/ast"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompileImportsNoMechanism holds docs/architecture.md's "the packages around the
// engine name no mechanism" to the model compiler: compile imports no package under
// mechanisms/. A mechanism whose setting needs what only the compiler has (the routing,
// the model being built) registers a model part (scenario.RegisterModelPart) from its
// folder, and compile builds every part it is given without naming one.
func TestCompileImportsNoMechanism(t *testing.T) {
	p := packages(t)["compile"]
	if p == nil {
		t.Fatal("no package compile")
	}
	for _, dep := range keys(p.imports) {
		if strings.HasPrefix(dep, "mechanisms/") {
			t.Errorf("compile imports %s: let the mechanism build its setting from its folder through a model part it registers (scenario.RegisterModelPart)", dep)
		}
	}
}

// modelFiles are compile's files that build a model or estimate it: the model, its routing
// and what the model parts are given; explain's offered loads and notes, the work
// estimate and the memory estimate.
var modelFiles = []string{"model.go", "routing.go", "parts.go", "explain.go", "work.go", "memory.go"}

// modelReadsAllowed are the functions of modelFiles that read a mechanism's field of
// scenario.Resolved and stay, each with why.
var modelReadsAllowed = map[string]string{
	"forRun": "a run's router wraps the table's scheme in a splitter of its own when shards split: routing's concern",
}

// TestModelBuildBranchesOnNoMechanism: compile's files that build a model or estimate it
// (modelFiles) read none of the fields of scenario.Resolved a mechanism resolves into
// (Migration, Indexes, Replicas, ...), but in modelReadsAllowed: what a mechanism's setting
// needs of the model its model part says (scenario.ModelPart), and what it adds to the
// estimates and explain's notes too (ModelPart.Load, Shards; scenario.RegisterLayoutNote).
func TestModelBuildBranchesOnNoMechanism(t *testing.T) {
	pkgs := packages(t)
	fields := mechanismFields(t, pkgs["scenario"], coreWords(t))
	p := pkgs["compile"]
	used := map[string]bool{}
	for _, f := range p.files {
		file := filepath.Base(p.fset.Position(f.Package).Filename)
		if !slices.Contains(modelFiles, file) {
			continue
		}
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
				if modelReadsAllowed[fd.Name.Name] != "" {
					used[fd.Name.Name] = true
				} else {
					t.Errorf("compile's %s (%s) reads %s, a mechanism's field of scenario.Resolved: let the mechanism's model part read it (scenario.RegisterModelPart)", fd.Name.Name, file, sel.Sel.Name)
				}
				return true
			})
		}
	}
	for n := range modelReadsAllowed {
		if !used[n] {
			t.Errorf("modelReadsAllowed lets %s stay, which reads no mechanism's field now: take it off", n)
		}
	}
}
