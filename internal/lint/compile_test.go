package lint

import (
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
