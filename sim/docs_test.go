package sim

import (
	"path/filepath"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
)

// docFigures checks the figures docs/mitigations.md quotes from a validation test (owner,
// the markers' prefix) against the test's own, or rewrites them under make docs.
func docFigures(t *testing.T, owner string, figs map[string]string) {
	t.Helper()
	docFiguresIn(t, "../docs/mitigations.md", owner, figs)
}

// docFiguresIn is docFigures for another doc (a path from the sim directory).
func docFiguresIn(t *testing.T, path, owner string, figs map[string]string) {
	t.Helper()
	doc, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	docmark.Apply(t, &docmark.Parts{Owner: owner, Figs: figs}, doc)
}
