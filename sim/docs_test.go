package sim

import (
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
)

// docFigures checks the figures docs/mitigations.md quotes from a validation test (owner,
// the markers' prefix) against the test's own, or rewrites them under make docs.
func docFigures(t *testing.T, owner string, figs map[string]string) {
	t.Helper()
	docmark.Figures(t, "../docs/mitigations.md", owner, figs)
}
