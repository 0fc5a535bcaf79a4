package eventloop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the event loop's stories under testdata: each scenario's
// variants, and their figures as the outputs show them, byte for byte
// (mechtest.Transcripts), and each node's load and mean CPU per request, the wake-ups'
// share included.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		for _, n := range metrics.Of(r).Nodes {
			fmt.Fprintf(b, "  node %d: load %.3f, CPU per request %.1f µs\n", n.ID, n.Utilization, n.Service*1e6)
		}
	})
}
