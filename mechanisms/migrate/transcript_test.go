package migrate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios/scenariotest"
	"github.com/shardsim/shardsim/sim"
)

// TestTranscripts runs the migration's stories under testdata: each scenario's variants,
// their figures as the outputs show them (mechtest.Transcripts), the migration's phases
// (start, backfill done, cutover due and done, old writes' end, settled), the rows to copy
// and copied (in all and by window), the backfill's and the dual writes' CPU, the batches a
// full queue refused, the outbox's copies drained, the rows and busy time of each shard of
// both layouts, and the run's action lines, byte for byte.
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, func(b *strings.Builder, r *sim.Result) {
		g := metrics.MigrationReport(r)
		if g == nil {
			b.WriteString("  no migration\n")
			return
		}
		fmt.Fprintf(b, "  start %v, backfill done %v, cutover due %v, cutover %v, old writes end %v, settled %v\n",
			g.Start, g.BackfillDone, g.CutoverDue, g.Cutover, g.OldWritesEnd, g.Settled)
		fmt.Fprintf(b, "  rate %g rows/s, rows to copy %d, copied %d, by window %v\n", g.Rate, g.RowsToCopy, g.RowsCopied, g.Copied)
		fmt.Fprintf(b, "  backfill CPU %v, by window %v, dual-write CPU %v, refused %d, drained %d\n",
			g.BackfillCPU, g.BackfillBusy, g.DualCPU, g.Refused, g.Drained)
		for s, sh := range r.Shards {
			layout := "old"
			if s >= g.Shards {
				layout = "new"
			}
			fmt.Fprintf(b, "  shard %d (%s) on node %d: %d ops, %d rows, busy %v\n", s, layout, sh.Node, sh.Ops, sh.Rows, sh.Busy)
		}
		for _, e := range r.Events {
			if e.Kind == sim.EventAction {
				fmt.Fprintf(b, "  event at %v: %s\n", e.At, e.Text)
			}
		}
	})
}
