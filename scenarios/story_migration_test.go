package scenarios_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/scenarios"
)

// TestMigrationStory runs the built-in migration (seed 21, 6 simulated minutes, five
// variants) and checks what its description says, in numbers. The values a run gives
// today are noted beside each check; the thresholds leave room around them.
func TestMigrationStory(t *testing.T) {
	s := runOtherStory(t, "migration")
	p99 := func(ph *float64) float64 {
		if ph == nil {
			t.Fatalf("a phase without a p99")
		}
		return *ph
	}
	mig := func(v string) (*metrics.MigrationResult, metrics.Migration) {
		r := s.result(v)
		ms := metrics.MigrationsOf(r)
		if metrics.MigrationReport(r) == nil || len(ms) != 1 {
			t.Fatalf("%s: no migration recorded", v)
		}
		return metrics.MigrationReport(r), ms[0]
	}

	// Where the table is: the last range shard takes every new order (66%).
	if loads := s.loads("range(order_id)"); loads[7] < 0.5 {
		t.Errorf("range(order_id): shard 7 at %.1f%%, want the hot last shard above 50%%", 100*loads[7])
	}

	// The migration: 1,800,000 history rows (1,000/s for 30 minutes) plus the 120 s of
	// writes before 09:02 (about 120,000), copied at 20,000 rows/s: about 96 s (100.1 s:
	// the copy waits in the hot node's queue now and then). The cutover follows.
	g, m := mig("migrate at 09:02")
	if g.RowsToCopy < 1_900_000 || g.RowsToCopy > 1_940_000 || g.RowsCopied != g.RowsToCopy {
		t.Errorf("migrate: %d of %d rows copied, want all of about 1,920,000", g.RowsCopied, g.RowsToCopy)
	}
	took := (g.BackfillDone - g.Start).Seconds()
	if want := float64(g.RowsToCopy) / 20_000; took < want || took > want*1.1 {
		t.Errorf("migrate: backfill took %.1f s, want rows / rate = %.1f s, at most 10%% more", took, want)
	}
	if g.Cutover != g.BackfillDone {
		t.Errorf("migrate: cutover at %v, want at the end of the backfill, %v", g.Cutover, g.BackfillDone)
	}
	// The cost and the relief: get_order's p99 (6.4 ms before, 72.7 during, 3.0 after).
	get := m.Phases[1]
	if b, d, a := p99(get.Before), p99(get.During), p99(get.After); d < 4*b || a > b/1.5 {
		t.Errorf("migrate: get_order p99 %.1f ms before, %.1f during, %.1f after; want the migration to cost (4x) and the cutover to relieve (1.5x)", b, d, a)
	}

	// Five times faster: over sooner (42.5 s against 100.1: not a fifth, as the copy
	// competes with live traffic for the cores of the nodes it passes, and waits), at the
	// price of a far worse p99 while it runs (371 ms against 73).
	gf, mf := mig("migrate, 5x faster backfill")
	if tf := (gf.BackfillDone - gf.Start).Seconds(); tf > took/2 {
		t.Errorf("5x faster: backfill took %.1f s, want under half of %.1f s", tf, took)
	}
	if df, d := p99(mf.Phases[1].During), p99(get.During); df < 3*d {
		t.Errorf("5x faster: get_order p99 during %.1f ms, want 3x the slower backfill's %.1f ms", df, d)
	}

	// The dry run copies the same rows but never cuts over: the dual writes go on to the
	// end (240 core-seconds against 101) and the last shard stays hot.
	docmark.Figures(t, "../docs/migrations.md", "mig", map[string]string{
		"mig.rows": group(g.RowsCopied), "mig.took": fmt.Sprintf("%.1f", took), "mig.want": fmt.Sprintf("%.1f", float64(g.RowsToCopy)/20_000),
		"mig.extra": fmt.Sprintf("%.1f", m.ExtraCPU), "mig.before": fmt.Sprintf("%.2f", *get.Before),
		"mig.during": fmt.Sprintf("%.2f", *get.During), "mig.after": fmt.Sprintf("%.2f", *get.After),
		"mig.fast.took": fmt.Sprintf("%.1f", (gf.BackfillDone - gf.Start).Seconds()), "mig.fast.during": fmt.Sprintf("%.2f", *mf.Phases[1].During),
	})

	gd, md := mig("dry run")
	if gd.Cutover >= 0 || md.Phases[1].After != nil || gd.BackfillDone < 0 {
		t.Errorf("dry run: cutover %v, backfill done %v; want a backfill and no cutover", gd.Cutover, gd.BackfillDone)
	}
	if gd.DualCPU < 2*g.DualCPU {
		t.Errorf("dry run: dual writes took %v of CPU, want over twice the migration's %v", gd.DualCPU, g.DualCPU)
	}
}

// TestMigrationTargetNotSelected: a variant selected alone (--variant) still gets the
// layout of the variant it migrates to, which is resolved but not run.
func TestMigrationTargetNotSelected(t *testing.T) {
	sc, err := scenarios.Load("migration", scenarios.Options{Variants: []string{"dry run"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Variants) != 1 || sc.Variants[0].Spec.Migration == nil || sc.Variants[0].Spec.Migration.Target == nil {
		t.Fatalf("%d variants; want the dry run alone, linked to its target", len(sc.Variants))
	}
	if v := sc.Variants[0]; v.MaxShards != 8+16 {
		t.Errorf("dry run: room for %d shards, want 8 old + 16 new", v.MaxShards)
	}
}

// group writes n with thousands separators, as the docs do.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
