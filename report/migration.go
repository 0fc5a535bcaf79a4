package report

import (
	"fmt"
	"io"
	"math"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// MigrationSummary is one migration of a variant (docs/migrations.md), as metrics derived it:
// the phases' times (null when not reached), the rows copied, the CPU it added, and every
// stream's p99 before, during and after it.
type MigrationSummary struct {
	// Start, BackfillDone and Cutover are the phases' clock times ("" when not reached).
	Start         string   `json:"start"`
	BackfillDone  string   `json:"backfill_done"`
	Cutover       string   `json:"cutover"`
	OldWritesEnd  string   `json:"old_writes_end"`
	StartS        *float64 `json:"start_s"`
	BackfillDoneS *float64 `json:"backfill_done_s"`
	CutoverS      *float64 `json:"cutover_s"`
	RowsCopied    int64    `json:"rows_copied"`
	// OldWritesEndS is when writes stopped going to the old layout (the cutover, or the
	// end of its verification period; null: not reached).
	OldWritesEndS *float64 `json:"old_writes_end_s"`
	ExtraCPUS     float64  `json:"extra_cpu_s"`
	RowsToCopy    int64    `json:"rows_to_copy"`
	BackfillCPUS  float64  `json:"backfill_cpu_s"`
	DualCPUS      float64  `json:"dual_write_cpu_s"`
	// BackfillRate is the rows per second the backfill ran at (backfill_rate, or what
	// max_cpu allows).
	BackfillRate float64 `json:"backfill_rate"`
	// CopiedPerWindow is the rows copied in each window.
	CopiedPerWindow []int64           `json:"rows_copied_per_window"`
	Phases          []PhaseP99Summary `json:"p99_by_phase"`
	// CutoverDueS is when the cutover was due: the cutover is later when it waited for
	// the outbox to drain (OutboxDrained copies).
	CutoverDueS   *float64 `json:"cutover_due_s"`
	OutboxDrained int64    `json:"outbox_drained"`
	// BackfillRefused counts the backfill's batches a full queue pushed back.
	BackfillRefused int64 `json:"backfill_refused"`
	// BackfillCPUPerWindow is the backfill's CPU (core-seconds) in each window.
	BackfillCPUPerWindow []float64 `json:"backfill_cpu_s_per_window"`
	// Settled is when the last request issued before the cutover finished, if after it:
	// the phase "after" of p99_by_phase starts there ("" and null: none).
	Settled  string   `json:"settled"`
	SettledS *float64 `json:"settled_s"`
}

// PhaseP99Summary is a stream's p99 (ms) before, during and after a migration, over the
// windows wholly inside each phase; null when none completed a request.
type PhaseP99Summary struct {
	Stream   string   `json:"stream"`
	BeforeMs *float64 `json:"before_ms"`
	DuringMs *float64 `json:"during_ms"`
	AfterMs  *float64 `json:"after_ms"`
}

func migrationsOf(sc *metrics.Scenario, m *metrics.Run) []MigrationSummary {
	var out []MigrationSummary
	at := func(s *float64) string {
		if s == nil {
			return ""
		}
		return units.Clock(sc.Start, secondsTime(*s), units.TimeOfDay)
	}
	for _, g := range m.Migrations {
		s := MigrationSummary{Start: at(g.Start), BackfillDone: at(g.BackfillDone), Cutover: at(g.Cutover), OldWritesEnd: at(g.OldWritesEnd),
			StartS: optRound(g.Start, 6), BackfillDoneS: optRound(g.BackfillDone, 6), CutoverS: optRound(g.Cutover, 6), OldWritesEndS: optRound(g.OldWritesEnd, 6),
			RowsCopied: g.RowsCopied, ExtraCPUS: units.Round(g.ExtraCPU, 3), RowsToCopy: g.RowsToCopy,
			BackfillCPUS: units.Round(g.BackfillCPU, 3), DualCPUS: units.Round(g.DualCPU, 3), BackfillRate: units.Round(g.Rate, 3), CopiedPerWindow: g.Copied,
			CutoverDueS: optRound(g.CutoverDue, 6), OutboxDrained: g.Drained, BackfillRefused: g.Refused,
			Settled: at(g.Settled), SettledS: optRound(g.Settled, 6)}
		if g.Rate > 0 && s.BackfillRate == 0 {
			// A rate that rounds to 0 (1e-300 rows/s) is a backfill that copies nothing,
			// not a migration without one.
			s.BackfillRate = g.Rate
		}
		for _, b := range g.BackfillCPUPerWindow {
			s.BackfillCPUPerWindow = append(s.BackfillCPUPerWindow, units.Round(b, 3))
		}
		for _, p := range g.Phases {
			s.Phases = append(s.Phases, PhaseP99Summary{Stream: p.Stream, BeforeMs: optMs(p.Before), DuringMs: optMs(p.During), AfterMs: optMs(p.After)})
		}
		out = append(out, s)
	}
	return out
}

// migrationText writes a variant's migrations for the text report: the phases and what
// they cost, then each stream's p99 in each phase.
func migrationText(w io.Writer, v *VariantSummary) {
	for i := range v.Migrations {
		line, t := migrationParts(&v.Migrations[i])
		fmt.Fprintf(w, "\n   migration: %s\n", line)
		t.text(w, "   ")
	}
}

// migrationMarkdown is migrationText for the Markdown report.
func migrationMarkdown(w io.Writer, v *VariantSummary) {
	for i := range v.Migrations {
		line, t := migrationParts(&v.Migrations[i])
		fmt.Fprintf(w, "\nMigration: %s.\n\n", md(line))
		t.markdown(w)
	}
}

// migrationParts words a migration's phases and costs, and tables its streams' p99 by
// phase.
func migrationParts(g *MigrationSummary) (string, *table) {
	at := func(s string) string {
		if s == "" {
			return "not reached"
		}
		return s
	}
	cut := at(g.Cutover)
	if g.OutboxDrained > 0 {
		cut += fmt.Sprintf(" (after the outbox's %s copies reached the new layout)", units.Count(g.OutboxDrained))
	}
	if g.Cutover != "" && g.OldWritesEnd != g.Cutover {
		cut += ", writes to the old layout too until " + at(g.OldWritesEnd)
	}
	backfill := fmt.Sprintf("backfill done %s (%s of %s rows copied)", at(g.BackfillDone), units.Count(g.RowsCopied), units.Count(g.RowsToCopy))
	if g.BackfillRefused > 0 {
		backfill = fmt.Sprintf("backfill done %s (%s of %s rows copied; %s batches pushed back by full queues)",
			at(g.BackfillDone), units.Count(g.RowsCopied), units.Count(g.RowsToCopy), units.Count(g.BackfillRefused))
	}
	if g.BackfillRate == 0 {
		backfill = "no backfill"
	}
	if g.Settled != "" {
		cut += "; the requests issued before it finished by " + g.Settled + ", when the phase after begins"
	}
	t := &table{head: []string{"p99 ms", "before", "during", "after"}, left: 1}
	for _, p := range g.Phases {
		t.add(p.Stream, optText(p.BeforeMs), optText(p.DuringMs), optText(p.AfterMs))
	}
	if g.Start == "" {
		return "not started: the run ended first", t
	}
	line := fmt.Sprintf("started %s, %s, cutover %s; extra CPU %s core-s (backfill %s, dual writes %s)",
		at(g.Start), backfill, cut, num(g.ExtraCPUS), num(g.BackfillCPUS), num(g.DualCPUS))
	return line, t
}

func optText(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *p)
}

// secondsTime is a time in seconds as simulated time, to the nanosecond.
func secondsTime(s float64) sim.Time { return sim.Time(math.Round(s * float64(sim.Second))) }
