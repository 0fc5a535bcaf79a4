package cache_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the cache's stories under testdata: each scenario's variants, their
// figures as the outputs show them (mechtest.Transcripts), and each cached stream's hits,
// stale hits, joined reads and database reads, byte for byte.
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
			for _, s := range r.Streams {
				fmt.Fprintf(&b, "  %s: cache hits %d (stale %d), joined %d, database reads %d\n", s.Name, s.CacheHits, s.CacheStale, s.CacheJoined, s.BackendReads)
			}
		}
		return b.String(), nil
	})
}
