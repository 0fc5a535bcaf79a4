package report

import (
	"fmt"
	"io"
	"math"

	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
)

// MigrationSummary is one migration of a variant (SPEC 10), as metrics derived it: the
// phases' times (null when not reached), the rows copied, the CPU it added, and every
// stream's p99 before, during and after it.
type MigrationSummary struct {
	StartS        *float64 `json:"start_s"`
	BackfillDoneS *float64 `json:"backfill_done_s"`
	CutoverS      *float64 `json:"cutover_s"`
	RowsCopied    int64    `json:"rows_copied"`
	ExtraCPUS     float64  `json:"extra_cpu_s"`
	RowsToCopy    int64    `json:"rows_to_copy"`
	BackfillCPUS  float64  `json:"backfill_cpu_s"`
	DualCPUS      float64  `json:"dual_write_cpu_s"`
	// CopiedPerWindow is the rows copied in each window.
	CopiedPerWindow []int64           `json:"rows_copied_per_window"`
	Phases          []PhaseP99Summary `json:"p99_by_phase"`
}

// PhaseP99Summary is a stream's p99 (ms) before, during and after a migration, over the
// windows wholly inside each phase; null when none completed a request.
type PhaseP99Summary struct {
	Stream   string   `json:"stream"`
	BeforeMs *float64 `json:"before_ms"`
	DuringMs *float64 `json:"during_ms"`
	AfterMs  *float64 `json:"after_ms"`
}

func migrationsOf(m *metrics.Run) []MigrationSummary {
	var out []MigrationSummary
	for _, g := range m.Migrations {
		s := MigrationSummary{StartS: optRound(g.Start, 6), BackfillDoneS: optRound(g.BackfillDone, 6), CutoverS: optRound(g.Cutover, 6),
			RowsCopied: g.RowsCopied, ExtraCPUS: round(g.ExtraCPU, 3), RowsToCopy: g.RowsToCopy,
			BackfillCPUS: round(g.BackfillCPU, 3), DualCPUS: round(g.DualCPU, 3), CopiedPerWindow: g.Copied}
		for _, p := range g.Phases {
			s.Phases = append(s.Phases, PhaseP99Summary{Stream: p.Stream, BeforeMs: optMs(p.Before), DuringMs: optMs(p.During), AfterMs: optMs(p.After)})
		}
		out = append(out, s)
	}
	return out
}

// migrationText writes a variant's migrations for the text report: the phases and what
// they cost, then each stream's p99 in each phase.
func migrationText(w io.Writer, sc *Summary, v *VariantSummary) {
	for _, g := range v.Migrations {
		at := func(s *float64) string {
			if s == nil {
				return "not reached"
			}
			start, _ := spec.ParseClock(sc.Start)
			return spec.FormatClock(start, secondsTime(*s))
		}
		fmt.Fprintf(w, "\n   migration: started %s, backfill done %s (%s of %s rows copied), cutover %s; extra CPU %s core-s (backfill %s, dual writes %s)\n",
			at(g.StartS), at(g.BackfillDoneS), fmtCount(g.RowsCopied), fmtCount(g.RowsToCopy), at(g.CutoverS),
			num(g.ExtraCPUS), num(g.BackfillCPUS), num(g.DualCPUS))
		t := &table{head: []string{"p99 ms", "before", "during", "after"}, left: 1}
		for _, p := range g.Phases {
			t.add(p.Stream, optText(p.BeforeMs), optText(p.DuringMs), optText(p.AfterMs))
		}
		t.text(w, "   ")
	}
}

func optText(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *p)
}

// secondsTime is a time in seconds as simulated time, to the nanosecond.
func secondsTime(s float64) sim.Time { return sim.Time(math.Round(s * float64(sim.Second))) }
