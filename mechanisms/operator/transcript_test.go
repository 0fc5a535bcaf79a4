package operator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the operator actions' stories under testdata: each scenario's
// variants, their figures as the outputs show them (mechtest.Figures), each stream's
// requests rejected by a full queue and turned away by the client's limit, each node's
// cores, busy time, longest queue and core time by window, and the alert timeline's lines
// (the actions' notes), byte for byte.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		for _, st := range r.Streams {
			fmt.Fprintf(b, "  %s: rejected %d, limited %d, attempts %d\n", st.Name, st.Rejected, st.Limited, st.Attempts)
		}
		for n, nd := range r.Nodes {
			fmt.Fprintf(b, "  node %d: %d cores, busy %v, max queue %d, core time by window %v\n", n, nd.Cores, nd.Busy, nd.MaxQueue, capacity(r, n))
		}
		for _, e := range r.Events {
			if e.Kind == sim.EventAction {
				fmt.Fprintf(b, "  event at %v: %s\n", e.At, e.Text)
			}
		}
	})
}

// capacity is node n's core time in each window, in seconds.
func capacity(r *sim.Result, n int) []float64 {
	out := make([]float64, r.Windows)
	for w := range out {
		out[w] = r.NodeCapacity[w*len(r.Nodes)+n].Seconds()
	}
	return out
}
