package replicas_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the followers' stories under testdata: each scenario's variants,
// their figures as the outputs show them (mechtest.Figures), the followers each shard has
// (Result.Replicas), each node's busy time and longest queue, each shard's node, rows,
// operations and load over the run (Utilization: its CPU over its copies' cores), and the
// first window's shard loads (ShardUtilization), byte for byte.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		fmt.Fprintf(b, "  followers per shard: %d\n", r.Replicas)
		for n, nd := range r.Nodes {
			fmt.Fprintf(b, "  node %d: busy %v, max queue %d, load by window %v\n", n, nd.Busy, nd.MaxQueue, nodeLoad(r, n))
		}
		for s, sh := range r.Shards {
			fmt.Fprintf(b, "  shard %d: node %d, rows %d, ops %d, busy %v, load %.4f, first window %.4f\n", s, sh.Node, sh.Rows, sh.Ops, sh.Busy, r.Utilization(s), r.ShardUtilization(0, s))
		}
	})
}

// nodeLoad is node n's load in each window (NodeUtilization), to four places.
func nodeLoad(r *sim.Result, n int) []string {
	out := make([]string, r.Windows)
	for w := range out {
		out[w] = fmt.Sprintf("%.4f", r.NodeUtilization(w, n))
	}
	return out
}
