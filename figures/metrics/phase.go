package metrics

import (
	"fmt"

	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Phase names the phases an SLO is judged in during a run that changes its layout.
var phaseNames = [3]string{"before the migration", "during the migration", "after the cutover"}

// PhaseStats are a stream's figures in one phase of a migration, over the windows wholly
// inside it (see PhaseP99): its latency statistics (Mean from the windows' histograms, to
// their 1% resolution) and its error rate over the requests issued in those windows.
// Latency fields are nil, and ErrorRate nil, when the phase has no such window with a
// completion (an offer, for the error rate).
type PhaseStats struct {
	Latency   Latency
	ErrorRate *float64
}

// PhaseStat holds a stream's PhaseStats before, during and after a migration.
type PhaseStat struct {
	Stream string
	Phases [3]PhaseStats
}

// phaseStats merges stream s's windows wholly inside [from, to).
func phaseStats(r *sim.Result, s *sim.StreamResult, from, to sim.Time) PhaseStats {
	var h sim.WindowHist
	var most sim.Time
	var offered, errs int64
	for w := range s.Win {
		ws := sim.Time(w) * r.Window
		if ws < from || ws+r.WindowSpan(w) > to {
			continue
		}
		win := &s.Win[w]
		offered += win.Offered
		errs += win.Errors
		if win.Hist.TotalCount() == 0 {
			continue
		}
		h.Merge(&win.Hist)
		most = max(most, win.Max)
	}
	var p PhaseStats
	if offered > 0 {
		p.ErrorRate = ptr(rate(errs, offered))
	}
	if h.TotalCount() == 0 {
		return p
	}
	mx := most.Millis()
	q := func(pc float64) *float64 { return ptr(min(float64(h.ValueAtQuantile(pc))/1000, mx)) }
	p.Latency = Latency{Mean: ptr(min(h.Histogram().Mean()/1000, mx)),
		P50: q(50), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9), Max: ptr(mx)}
	return p
}

// value returns the statistic st in phase p (nil: the phase has none).
func (st Statistic) phaseValue(p *PhaseStats) *float64 {
	if st == ErrorRate {
		return p.ErrorRate
	}
	s := Stream{Latency: p.Latency}
	return st.Value(&s)
}

// Unfinished says why a run's migration or rebalance did not finish by the end of the
// run, or "" when it finished or the run has none: a migration that started and did not
// copy all its rows (or, without a backfill, never cut over); a rebalance whose moves
// were not all done.
func (r *Run) Unfinished() string {
	for _, g := range r.Migrations {
		switch {
		case g.Start == nil:
		case g.RowsCopied < g.RowsToCopy:
			return fmt.Sprintf("the migration did not finish: its backfill copied %s of %s rows by the end of the run", units.Count(g.RowsCopied), units.Count(g.RowsToCopy))
		case g.RowsToCopy == 0 && g.Rate == 0 && g.Cutover == nil:
			return "the migration did not finish: it never cut over"
		}
	}
	if b := r.Rebalance; b != nil && b.Start != nil && b.Done == nil {
		return fmt.Sprintf("the rebalance did not finish: %d of %d shard moves done by the end of the run", b.MovesDone, b.Moves)
	}
	return ""
}

// judgePhases judges slo in each phase of the runs' migration (the mean over the runs of
// the phase's statistic, for the phases every run has a value in) and returns the first
// phase over the bound, as a failed verdict, or ok.
func judgePhases(v Verdict, slo SLO, runs []*Run) (Verdict, bool) {
	for k := range phaseNames {
		var sum float64
		n := 0
		for _, r := range runs {
			if len(r.Migrations) == 0 {
				return v, true
			}
			var x *float64
			for i := range r.Migrations[0].Stats {
				if ps := &r.Migrations[0].Stats[i]; ps.Stream == slo.Stream {
					x = slo.Stat.phaseValue(&ps.Phases[k])
				}
			}
			if x != nil {
				sum += *x
				n++
			}
		}
		if n < len(runs) || n == 0 {
			continue
		}
		if m := sum / float64(n); !(m < slo.Bound) {
			return v.fail(m/slo.Bound, fmt.Sprintf("%s %s %s %s >= %s", slo.Stream, slo.Stat, phaseNames[k], format(slo.Stat, m), format(slo.Stat, slo.Bound))), false
		}
	}
	return v, true
}
