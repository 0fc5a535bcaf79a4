package locks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs row locks' stories under testdata: each scenario's variants, their
// figures as the outputs show them, and each locked stream's lock line (its waits, as
// metrics derives them, and the mean hold), byte for byte (mechtest.Transcripts).
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		for _, st := range metrics.Of(r).Streams {
			if l := st.Locks; l != nil {
				fmt.Fprintf(b, "    %s lock: %d writes asked, %d waited (%.3f), mean %s, p99 %s, max %s; hold %s; %d timed out\n",
					st.Name, l.Waits, l.Queued, l.Share, ms(l.Mean), ms(l.P99), ms(l.Max), ms(l.HoldMean), st.Failures[metrics.Lock])
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
