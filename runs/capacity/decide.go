package capacity

import (
	"math"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// Stopping a run once its verdict is settled (docs/capacity.md, "How the search works").
// A run starts with empty queues, so what it has measured of a latency statistic so far
// leans low against the whole run's, as long as the streams' rates hold still: a statistic
// clearly past its bound early on stays past it, and the rest of the run only spends time.
// Such a run is stopped (sim.Model.Watch) and judged on what it measured: a failure.
// A run whose statistics are clearly under their bounds, with no request failed, once it
// has measured as many relaxation times of its hottest node's queue as the search asks of
// a settled run (runner.Lengths, with the node's load as the utilization law predicts it
// and the costliest stream's cost), is stopped too: a pass, measured as long as a run the
// search would trust. Only where every stream's rate is constant and the utilization law
// applies (steady), so that nothing later in the run can ease or load it.
const (
	// decideMargin is how far past its bound a statistic must be, measured so far, to
	// settle the failure: the 20% covers a quantile's noise over a short stretch.
	decideMargin = 1.2
	// passMargin is how far under its bound a statistic must be, measured so far, to
	// settle a pass: a run's tail over a few tens of relaxation times still swings by a
	// fifth near full load (the M/M/4 of TestSearchCost passed early at 1.2 and answered
	// 1% above the whole runs' answer), so a pass is settled early only well under it.
	passMargin = 1.5
	// decideTail is how many counted completions a quantile's tail must hold (n (1-q)),
	// or a mean its whole count, before it is judged.
	decideTail = 200
	// decideAfter is the least simulated time measured after the warmup before a run is
	// judged early.
	decideAfter = 10 * sim.Second
)

// quantileOf is the quantile a latency statistic is, or 0 for mean and max.
func quantileOf(st metrics.Statistic) float64 {
	switch st {
	case metrics.P50:
		return 0.5
	case metrics.P90:
		return 0.9
	case metrics.P95:
		return 0.95
	case metrics.P99:
		return 0.99
	case metrics.P999:
		return 0.999
	}
	return 0
}

// watcher returns a Model.Watch for model m, run at multiple mult of the scenario whose
// utilization law is lim, that stops the run once an SLO's latency statistic, measured so
// far, is decideMargin past its bound (a max: past it at all), or once every one is
// passMargin under it after the run measured long enough to be settled (passAfter) with
// no request failed. With an error-rate SLO only failures are settled early. nil when no
// SLO can be settled early.
func (c *Config) watcher(m *sim.Model, mult float64, lim offeredLimit) func(sim.Watch) bool {
	var ws []watched
	for _, slo := range c.SLOs {
		if slo.Stat == metrics.ErrorRate {
			continue
		}
		for i := range m.Streams {
			if m.Streams[i].Name == slo.Stream {
				ws = append(ws, watched{i, slo.Stat, sim.Time(math.Round(slo.Bound * float64(sim.Millisecond)))})
			}
		}
	}
	if len(ws) == 0 {
		return nil
	}
	from := m.Warmup + decideAfter
	pass := c.passAfter(m, mult, lim, len(ws) == len(c.SLOs))
	return func(w sim.Watch) bool {
		if w.Now() < from {
			return false
		}
		under := w.Now() >= pass
		for _, x := range ws {
			fail, ok := x.read(w)
			if fail {
				return true
			}
			under = under && ok
		}
		if under {
			for i := range m.Streams {
				if w.Failed(i) > 0 {
					return false
				}
			}
		}
		return under
	}
}

// watched is an SLO's latency statistic on one stream of a watched run.
type watched struct {
	stream int
	stat   metrics.Statistic
	bound  sim.Time
}

// read reads x's statistic so far: fail when it is decideMargin past its bound (a max:
// past it at all), under when it is passMargin under it with the samples to say so.
func (x watched) read(w sim.Watch) (fail, under bool) {
	n := w.Completed(x.stream)
	var v float64
	switch q := quantileOf(x.stat); {
	case x.stat == metrics.Max:
		v = float64(w.Max(x.stream))
		if v >= float64(x.bound) {
			return true, false
		}
	case x.stat == metrics.Mean:
		if n < decideTail {
			return false, false
		}
		v = float64(w.Mean(x.stream))
	case q > 0:
		if float64(n)*(1-q) < decideTail {
			return false, false
		}
		v = float64(w.Quantile(x.stream, q))
	}
	if v >= decideMargin*float64(x.bound) {
		return true, false
	}
	return false, v*passMargin <= float64(x.bound)
}

// passAfter is the time from which a run of model m at multiple mult may be stopped as a
// pass: its warmup and Relaxed relaxation times (with their margin) of the hottest node's
// queue at the load the law offers it, at least decideAfter; never (never) where a
// pass cannot be settled early: an error-rate SLO (all false), scans that cost by the
// row, or a node the law offers nearly all its cores.
func (c *Config) passAfter(m *sim.Model, mult float64, lim offeredLimit, all bool) sim.Time {
	if !all || lim.node >= len(m.Nodes) {
		return never
	}
	var cost sim.Time
	for i := range m.Streams {
		if m.Streams[i].RowCost > 0 {
			return never
		}
		cost = max(cost, m.Streams[i].Cost)
	}
	tau := metrics.Relaxation(mult*lim.load, m.Nodes[lim.node].Cores, cost.Seconds())
	need := c.lengths(mult).Relaxed() * settleMargin * tau
	if !(need < m.Duration.Seconds()) {
		return never
	}
	return m.Warmup + max(decideAfter, sim.Time(math.Ceil(need*float64(sim.Second))))
}

// never is a time no run reaches.
const never = sim.Time(math.MaxInt64)

// settleMargin is runner's: a run measures a little past its relaxation times.
const settleMargin = 1.2
