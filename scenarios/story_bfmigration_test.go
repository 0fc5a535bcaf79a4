package scenarios_test

import (
	"fmt"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// TestBlackFridayMigrationStory runs the built-in black-friday-migration's migrating
// variant alone (seed 42, 11 simulated minutes from 08:57; its before phase is the variant
// without a migration, which runs the same traffic on the same key until 09:00) and checks
// what docs/migrations.md says of it, in numbers. The values a run gives today are noted
// beside each check; the thresholds leave room around them.
func TestBlackFridayMigrationStory(t *testing.T) {
	const variant = "migrate at 09:00"
	sc, err := scenarios.Load("black-friday-migration", scenarios.Options{Variants: []string{variant}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Variants) != 1 {
		t.Fatalf("%d variants selected, want 1", len(sc.Variants))
	}
	r := sim.Run(sc.Variants[0].Model())
	g := metrics.MigrationReport(r)
	ms := metrics.MigrationsOf(r)
	if g == nil || len(ms) != 1 || g.Cutover < 0 {
		t.Fatalf("no migration that cut over recorded: %+v", g)
	}
	m := ms[0]
	span := r.Window.Seconds()
	start, cut := int(g.Start/r.Window), int(g.Cutover/r.Window) // first dual window, the cutover's window
	warm := int((r.Warmup + r.Window - 1) / r.Window)

	// The cost. Node 11 serves the last range shard, which takes every new order and
	// more than its 4 cores serve; from 09:00 it also serves its share of the dual
	// writes to the new layout (its shard of the fixed key; 0.21 of a core: the hour's 40
	// partitions do not fall evenly on 12 shards) and loses that much to the hot shard:
	// more orders are rejected at its full queue (797/s in the window before 09:00, once
	// the queue has filled, after the 150 s warmup; 1,524/s during).
	var dual sim.Time
	for w := start; w < cut; w++ {
		for s := g.Shards; s < len(r.Shards); s++ {
			if r.ShardNodeAt(s, w) == 11 {
				dual += r.ShardBusy[w*len(r.Shards)+s]
			}
		}
	}
	dualCores := dual.Seconds() / (float64(cut-start) * span)
	if dualCores < 0.1 || dualCores > 0.5 {
		t.Errorf("node 11 spent %.2f cores on the dual writes, want about 0.2", dualCores)
	}
	errRate := func(from, to int) float64 {
		var n int64
		for w := from; w < to; w++ {
			n += r.Streams[0].Win[w].Errors
		}
		return float64(n) / (float64(to-from) * span)
	}
	errBefore, errDuring := errRate(warm, start), errRate(start+1, cut)
	if errDuring < errBefore*1.1 {
		t.Errorf("create_order rejected %.0f/s before and %.0f/s during the dual writes, want more during", errBefore, errDuring)
	}

	// The backfill: the minute of history (12,500 x 60 = 750,000 rows) and the three
	// minutes written since 08:57 (about 2.1 million) at 50,000 rows/s would take about
	// 57 s; the copy of the last shard's rows waits behind its node's backlog, batch by
	// batch, and takes most of six minutes.
	took := (g.BackfillDone - g.Start).Seconds()
	want := float64(g.RowsToCopy) / 50_000
	if g.RowsCopied != g.RowsToCopy || took < 3*want {
		t.Errorf("backfill: %d of %d rows in %.1f s, want all, far slower than rows / rate = %.1f s", g.RowsCopied, g.RowsToCopy, took, want)
	}

	// The relief: after the cutover the hot node's backlog (old-layout writes) drains,
	// then create_order's p99 falls from seconds to milliseconds in the last window.
	last := metrics.WindowQuantile(&r.Streams[0].Win[r.Windows-1], 0.99)
	before := m.Phases[0].Before
	if last == nil || before == nil || *last > 50 || *before < 1000 {
		t.Fatalf("create_order p99 %v ms before, %v ms in the last window: want seconds, then under 50 ms", before, last)
	}
	t.Logf("dual writes on node 11 %.2f cores; rejections %.0f/s -> %.0f/s; backfill %d rows in %.1f s (rows/rate %.1f s, %d batches pushed back, %.1f core-s); p99 before %.0f ms, last window %.2f ms",
		dualCores, errBefore, errDuring, g.RowsCopied, took, want, g.Refused, g.BackfillCPU.Seconds(), *before, *last)
	after := "-" // no window wholly after the phase "after" begins
	if a := m.Phases[0].After; a != nil {
		after = fmt.Sprintf("%.2f", *a)
	}
	// The phase "after" begins when the last order issued before the cutover finished
	// (Settled), or at the cutover when none was still in flight.
	settled := g.Cutover
	if g.Settled > g.Cutover {
		settled = g.Settled
	}
	docmark.Figures(t, "../docs/migrations.md", "bfm", map[string]string{
		"bfm.dual":   fmt.Sprintf("%.2f", dualCores),
		"bfm.errb":   fmt.Sprintf("%.0f", errBefore),
		"bfm.errd":   fmt.Sprintf("%.0f", errDuring),
		"bfm.rows":   group(g.RowsToCopy),
		"bfm.want":   fmt.Sprintf("%.0f", want),
		"bfm.took":   fmt.Sprintf("%.0f", took),
		"bfm.cut":    units.Clock(sc.Variants[0].Spec.Start, g.Cutover, units.TimeOfDay),
		"bfm.before": fmt.Sprintf("%.0f", *before),
		"bfm.last":   fmt.Sprintf("%.2f", *last),
		// create_order's p99 over the windows wholly after the backlog of the old layout
		// drained (p99_by_phase).
		"bfm.after":   after,
		"bfm.settled": units.Clock(sc.Variants[0].Spec.Start, settled, units.TimeOfDay),
		"bfm.extra":   fmt.Sprintf("%.0f", m.ExtraCPU),
		// The batches the hot node's full queue pushed back (backfill_refused).
		"bfm.refused": fmt.Sprintf("%d", g.Refused),
		// The real table: 30 days of orders at the built-in's 12,500 a second, copied at the
		// rate the run applied, CPU not binding.
		"bfm.real": fmt.Sprintf("%.1f", 12_500*30*86_400/g.Rate/86_400),
	})
}
