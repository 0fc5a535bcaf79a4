package cache_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the cache's stories under testdata: each scenario's variants, their
// figures as the outputs show them (mechtest.Transcripts), and each cached stream's hits,
// stale hits, joined reads and database reads, byte for byte.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		for i, s := range r.Streams {
			var n metrics.CacheCounts
			if c := metrics.CacheCountsOf(r, i); c != nil {
				n = *c
			}
			fmt.Fprintf(b, "  %s: cache hits %d (stale %d), joined %d, database reads %d\n", s.Name, n.Hits, n.Stale, n.Joined, n.BackendReads)
		}
	})
}
