// Package scenariotest runs a mechanism's transcripts from their scenario text: each is
// loaded as shardsim loads a file, each variant run, and its figures written
// (docs/architecture.md, "A mechanism", step 6). It is mechanisms/mechtest's other half,
// apart because it loads scenarios: the loader imports every mechanism, whose own internal
// tests import mechtest, and a mechanism's folder imports nothing above it.
package scenariotest

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// Transcripts runs mechtest.Transcripts on the package's testdata/*.txtar: each
// transcript's scenario is loaded with no options, and each variant, in order, is run and
// written as its figures (mechtest.Figures) followed by the lines more adds for its result
// (more may be nil).
func Transcripts(t *testing.T, more func(b *strings.Builder, r *sim.Result)) {
	t.Helper()
	mechtest.Transcripts(t, func(file string, src []byte) (string, error) {
		sc, err := scenarios.LoadBytes(file, src, scenarios.Options{})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, v := range sc.Variants {
			r := sim.Run(v.Model())
			b.WriteString(mechtest.Figures(v.Name, r))
			if more != nil {
				more(&b, r)
			}
		}
		return b.String(), nil
	})
}
