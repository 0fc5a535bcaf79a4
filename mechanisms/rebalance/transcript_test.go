package rebalance_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the rebalance's stories under testdata: each scenario's variants,
// their figures as the outputs show them (mechtest.Transcripts), when the nodes joined and
// the last move was done, the copy rate applied, each planned move (its shard, nodes, rows
// and times), the rows copied in all and by window, the copies' CPU, each node's cores, busy
// time and core time by window (a joining node has none before it joins), and the run's move events, byte for byte.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		g := metrics.RebalanceReport(r)
		if g == nil {
			b.WriteString("  no rebalance\n")
			return
		}
		fmt.Fprintf(b, "  joined at %v, done at %v, rate %g rows/s\n", g.Start, g.Done, g.Rate)
		for _, mv := range g.Moves {
			fmt.Fprintf(b, "  move shard %d: node %d to %d, %d rows, %v to %v\n", mv.Shard, mv.From, mv.To, mv.Rows, mv.Start, mv.Done)
		}
		fmt.Fprintf(b, "  copied %d rows, by window %v, copy CPU %v\n", g.RowsCopied, g.Copied, g.CopyCPU)
		for n, nd := range r.Nodes {
			fmt.Fprintf(b, "  node %d: %d cores, busy %v, max queue %d, core time by window %v\n", n, nd.Cores, nd.Busy, nd.MaxQueue, capacity(r, n))
		}
		for _, e := range r.Events {
			switch e.Kind {
			case sim.EventMove:
				fmt.Fprintf(b, "  event at %v: shard %d to node %d\n", e.At, e.Shard, e.Node)
			case sim.EventAction:
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
