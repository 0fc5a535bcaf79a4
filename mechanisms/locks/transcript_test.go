package locks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs row locks' stories under testdata: each scenario's variants, their
// figures as the outputs show them, and each locked stream's lock line (its waits, as
// metrics derives them, and the mean hold), byte for byte (mechtest.Transcripts).
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
			for _, st := range metrics.Of(r).Streams {
				if l := st.Locks; l != nil {
					fmt.Fprintf(&b, "    %s lock: %d writes asked, %d waited (%.3f), mean %s, p99 %s, max %s; hold %s; %d timed out\n",
						st.Name, l.Waits, l.Queued, l.Share, ms(l.Mean), ms(l.P99), ms(l.Max), ms(l.HoldMean), st.Failures[metrics.Lock])
				}
			}
		}
		return b.String(), nil
	})
}

// ms writes a figure in milliseconds, "-" when it is absent.
func ms(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f ms", *v)
}
