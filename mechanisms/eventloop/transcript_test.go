package eventloop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the event loop's stories under testdata: each scenario's
// variants, and their figures as the outputs show them, byte for byte
// (mechtest.Transcripts), and each node's load and mean CPU per request, the wake-ups'
// share included.
func TestTranscripts(t *testing.T) {
	mechtest.Transcripts(t, func(file string, src []byte) (string, error) {
		sc, err := scenarios.LoadBytes(file, src, scenarios.Options{})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, v := range sc.Variants {
			r := sim.Run(v.Model())
			b.WriteString(mechtest.Figures(v.Name, r))
			for _, n := range metrics.Of(r).Nodes {
				fmt.Fprintf(&b, "  node %d: load %.3f, CPU per request %.1f µs\n", n.ID, n.Utilization, n.Service*1e6)
			}
		}
		return b.String(), nil
	})
}
