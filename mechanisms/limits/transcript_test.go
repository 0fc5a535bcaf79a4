package limits_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/split"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs partition limits' stories under testdata: each scenario's variants,
// their figures as the outputs show them (mechtest.Transcripts), each stream's throttled
// requests, each shard's throttled subrequests and each split, with its cause and value,
// byte for byte.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		for _, s := range r.Streams {
			fmt.Fprintf(b, "  %s: throttled %d, by window %v\n", s.Name, s.Failed[limits.Throttled], throttledByWindow(s.Win))
		}
		for i, sh := range r.Shards {
			fmt.Fprintf(b, "  shard %d: ops %d, throttled %d\n", i, sh.Ops, sh.Failed[limits.Throttled])
		}
		for _, e := range r.Events {
			if e.Kind == sim.EventSplit {
				fmt.Fprintf(b, "  split at %v: shard %d to %d, %s, value %g\n", e.At, e.Shard, e.Child, cause(split.Cause(e.Why)), e.Value)
			}
		}
	})
}

func throttledByWindow(win []sim.WindowLatency) []int64 {
	out := make([]int64, len(win))
	for w := range win {
		out[w] = win[w].Failed[limits.Throttled]
	}
	return out
}

// cause names a split's cause: a partition limit's throttling is the one this story shows.
func cause(c split.Cause) string {
	if c == split.Throttled {
		return "throttled"
	}
	return fmt.Sprintf("cause %d", c)
}
