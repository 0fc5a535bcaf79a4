package metrics

import (
	"github.com/shardsim/shardsim/sim"
)

// Migration is what a run's migration (docs/migrations.md) did, in seconds since the start of
// the run. A phase the run did not reach has a nil time.
type Migration struct {
	Start, BackfillDone, Cutover *float64
	// OldWritesEnd is when writes stopped going to the old layout: the cutover, or the end
	// of its verification period.
	OldWritesEnd           *float64
	RowsToCopy, RowsCopied int64
	// ExtraCPU is the CPU time (core-seconds) the migration added: the backfill's
	// (BackfillCPU) and the dual writes' to the new layout before the cutover (DualCPU).
	ExtraCPU, BackfillCPU, DualCPU float64
	// Copied is the rows copied in each window.
	Copied []int64
	// Rate is the backfill's rate in rows per second, after its CPU cap.
	Rate float64
	// Settled is when the last request issued before the cutover reached its client, if
	// that was after the cutover: the phase "after" starts there, once the backlog of the
	// old layout has drained (nil: no such request).
	Settled *float64
	// Phases holds each stream's p99 before the migration, during it (up to the cutover,
	// or the end of the run, and on until Settled) and after it, in Result.Streams order.
	Phases []PhaseP99
	// Stats holds each stream's figures in each phase (PhaseStats), in Result.Streams
	// order: what an SLO is judged by phase on (Judge).
	Stats []PhaseStat
	// CutoverDue is when the cutover was due (nil: not reached); the cutover is later when
	// it waited for the outbox to drain, Drained being the copies it waited for.
	CutoverDue *float64
	Drained    int64
	// Refused counts the backfill's batches a full queue pushed back (each tried again
	// one batch period later).
	Refused int64
	// BackfillCPUPerWindow is the backfill's CPU (core-seconds) in each window, as its
	// batches were served.
	BackfillCPUPerWindow []float64
}

// PhaseP99 is a stream's p99 latency (ms) in each phase of a migration: over the windows
// wholly inside the phase (a window that straddles a phase's start or end is left out),
// nil when no such window has a completion.
type PhaseP99 struct {
	Stream                string
	Before, During, After *float64
}

// MigrationsOf returns the run's migrations: none, or the one its migration (mechanisms/migrate) ran.
func MigrationsOf(r *sim.Result) []Migration {
	g := MigrationReport(r)
	if g == nil {
		return nil
	}
	sec := func(t sim.Time) *float64 {
		if t < 0 {
			return nil
		}
		return ptr(t.Seconds())
	}
	m := Migration{Start: sec(g.Start), BackfillDone: sec(g.BackfillDone), Cutover: sec(g.Cutover), OldWritesEnd: sec(g.OldWritesEnd),
		RowsToCopy: g.RowsToCopy, RowsCopied: g.RowsCopied,
		ExtraCPU: (g.BackfillCPU + g.DualCPU).Seconds(), BackfillCPU: g.BackfillCPU.Seconds(), DualCPU: g.DualCPU.Seconds(),
		Copied: append([]int64(nil), g.Copied...), Rate: g.Rate,
		CutoverDue: sec(g.CutoverDue), Drained: g.Drained, Refused: g.Refused}
	for _, b := range g.BackfillBusy {
		m.BackfillCPUPerWindow = append(m.BackfillCPUPerWindow, b.Seconds())
	}
	// Phase bounds: [0, start), [start, after), [after, end), where after is the cutover,
	// or later, when the last request issued before it finished (Settled): the requests
	// the old layout held back drain after the cutover, and their latency is the old
	// layout's, not the new one's. A phase not reached is empty.
	end := r.Elapsed
	start, cut := end, end
	if g.Start >= 0 {
		start = g.Start
		if g.Cutover >= 0 {
			cut = max(g.Cutover, g.Settled)
		}
	}
	if g.Cutover >= 0 && g.Settled > g.Cutover {
		m.Settled = ptr(g.Settled.Seconds())
	}
	for i := range r.Streams {
		s := &r.Streams[i]
		m.Phases = append(m.Phases, PhaseP99{Stream: s.Name,
			Before: phaseP99(r, s, 0, start), During: phaseP99(r, s, start, cut), After: phaseP99(r, s, cut, end)})
		m.Stats = append(m.Stats, PhaseStat{Stream: s.Name,
			Phases: [3]PhaseStats{phaseStats(r, s, 0, start), phaseStats(r, s, start, cut), phaseStats(r, s, cut, end)}})
	}
	return []Migration{m}
}

// phaseP99 merges the latency histograms of s's windows wholly inside [from, to) and
// returns their p99 in milliseconds, capped at the windows' exact maximum.
func phaseP99(r *sim.Result, s *sim.StreamResult, from, to sim.Time) *float64 {
	var h sim.WindowHist
	var most sim.Time
	for w := range s.Win {
		ws := sim.Time(w) * r.Window
		if ws < from || ws+r.WindowSpan(w) > to {
			continue
		}
		win := &s.Win[w]
		if win.Hist.TotalCount() == 0 {
			continue
		}
		h.Merge(&win.Hist)
		most = max(most, win.Max)
	}
	if h.TotalCount() == 0 {
		return nil
	}
	return ptr(min(float64(h.ValueAtQuantile(99))/1000, most.Millis()))
}
