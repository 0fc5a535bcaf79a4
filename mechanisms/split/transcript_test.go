package split_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/split"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs automatic splits' stories under testdata: each scenario's variants,
// their figures as the outputs show them (mechtest.Transcripts), each split and move with
// its time, cause and value, and each shard's parent, birth, node and work, byte for byte.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		for _, e := range r.Events {
			switch e.Kind {
			case sim.EventSplit:
				fmt.Fprintf(b, "  split at %v: shard %d to %d, %s, value %.4g\n", e.At, e.Shard, e.Child, cause(split.Cause(e.Why)), e.Value)
			case sim.EventMove:
				fmt.Fprintf(b, "  move at %v: shard %d to node %d\n", e.At, e.Shard, e.Node)
			}
		}
		for i, sh := range r.Shards {
			fmt.Fprintf(b, "  shard %d: parent %d at %v, node %d (home %d), ops %d, rows %d, throttled %d, busy %v\n",
				i, sh.Parent, sh.Created, sh.Node, sh.Home, sh.Ops, sh.Rows, sh.Failed[limits.Throttled], sh.Busy)
		}
		fmt.Fprintf(b, "  shard series: %d windows x %d shards\n", r.Windows, len(r.ShardBusy)/max(r.Windows, 1))
	})
}

// cause names a split's cause.
func cause(c split.Cause) string {
	switch c {
	case split.Load:
		return "load"
	case split.Rows:
		return "rows"
	case split.Throttled:
		return "throttled"
	}
	return fmt.Sprintf("cause %d", c)
}
