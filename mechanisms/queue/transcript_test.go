package queue_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs a job queue's stories under testdata: each scenario's variants,
// their figures as the outputs show them, and each claiming stream's lock line (the claims
// that waited for a held job's row, as metrics derives them, and the mean hold), byte for
// byte (mechtest.Transcripts).
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		for _, st := range metrics.Of(r).Streams {
			if l := st.Locks; l != nil {
				fmt.Fprintf(b, "    %s lock: %d claims asked, %d waited (%.3f), mean %s, p99 %s, max %s; hold %s\n",
					st.Name, l.Waits, l.Queued, l.Share, ms(l.Mean), ms(l.P99), ms(l.Max), ms(l.HoldMean))
			}
		}
	})
}

// ms writes a figure in milliseconds, "-" when it is absent.
func ms(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f ms", *v)
}
