package report

import (
	"strings"
	"testing"
)

// TestMigrationWording: the migration line says what happened in each case: the full
// course, a verification period, no backfill, and a migration the run never reached.
func TestMigrationWording(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	full := MigrationSummary{Start: "09:02", BackfillDone: "09:03:40", Cutover: "09:03:40", OldWritesEnd: "09:03:40",
		RowsCopied: 1500, RowsToCopy: 1500, ExtraCPUS: 3.5, BackfillCPUS: 1, DualCPUS: 2.5, BackfillRate: 100,
		Phases: []PhaseP99Summary{{Stream: "w", BeforeMs: f(1), DuringMs: f(20), AfterMs: nil}}}
	verify := full
	verify.OldWritesEnd = "09:04:40"
	none := full
	none.BackfillRate, none.BackfillDone, none.RowsCopied, none.RowsToCopy = 0, "", 0, 0
	late := MigrationSummary{BackfillRate: 100}
	pushed := full
	pushed.BackfillRefused, pushed.OutboxDrained = 1234, 800
	for _, c := range []struct {
		g    MigrationSummary
		want string
	}{
		{full, "started 09:02, backfill done 09:03:40 (1,500 of 1,500 rows copied), cutover 09:03:40; extra CPU 3.5 core-s (backfill 1, dual writes 2.5)"},
		{verify, "cutover 09:03:40, writes to the old layout too until 09:04:40;"},
		{none, "started 09:02, no backfill, cutover 09:03:40;"},
		{late, "not started: the run ended first"},
		{pushed, "(1,500 of 1,500 rows copied; 1,234 batches pushed back by full queues), cutover 09:03:40 (after the outbox's 800 copies reached the new layout);"},
	} {
		line, tb := migrationParts(&c.g)
		if !strings.Contains(line, c.want) {
			t.Errorf("got %q, want it to contain %q", line, c.want)
		}
		var b strings.Builder
		tb.text(&b, "")
		if len(c.g.Phases) > 0 && !strings.Contains(b.String(), "20.00") {
			t.Errorf("phase table %q lacks the during p99", b.String())
		}
	}
}
