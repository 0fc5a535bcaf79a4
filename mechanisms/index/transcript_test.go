package index_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the indexes' stories under testdata: each scenario's variants, their
// figures as the outputs show them (mechtest.Transcripts), each stream's throttled and
// rejected requests, and each index's shards with the subrequests they served and
// throttled, byte for byte.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		for _, s := range r.Streams {
			fmt.Fprintf(b, "  %s: throttled %d, rejected %d\n", s.Name, s.Failed[limits.Throttled], s.Rejected)
		}
		for _, x := range metrics.IndexLayouts(r) {
			mode := "sync"
			if x.Async {
				mode = "async"
			}
			fmt.Fprintf(b, "  index %s (%s), shards %d to %d:", x.Name, mode, x.First, x.First+x.Shards-1)
			for s := x.First; s < x.First+x.Shards; s++ {
				fmt.Fprintf(b, " %d ops, %d throttled;", r.Shards[s].Ops, r.Shards[s].Failed[limits.Throttled])
			}
			b.WriteString("\n")
		}
	})
}
