package flush_test

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the commit flush's stories under testdata: each scenario's
// variants, and their figures as the outputs show them, byte for byte
// (mechtest.Transcripts).
func TestTranscripts(t *testing.T) {
	mechtest.Transcripts(t, func(file string, src []byte) (string, error) {
		sc, err := scenarios.LoadBytes(file, src, scenarios.Options{})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, v := range sc.Variants {
			b.WriteString(mechtest.Figures(v.Name, sim.Run(v.Model())))
		}
		return b.String(), nil
	})
}
