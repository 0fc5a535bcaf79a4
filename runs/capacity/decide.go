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
//
// The ceiling (--max-utilization) judges a node's busiest window, a maximum over the
// run's windows: once a whole window of some node is past it, the whole run's busiest
// window is too, whatever the later windows hold, so the run is stopped as a failure
// then, with no margin (the window is one the whole run has, measured to the same
// nanosecond). And a run is stopped only where the window the stop cuts short is no
// busier, for any node, than that node's busiest whole window so far (ceilingWatch.cutOK):
// a stopped run's busiest window is then one the whole run has, so that it leans low
// against the whole run's as its latencies do; where no such stop comes, the run is
// whole. A failure on a saturated node, whose cut window is always its busiest, stops
// all the same.
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
	rw := &runWatch{cw: c.ceilingWatch(m, lim.costliest), ws: c.watchedSLOs(m), from: m.Warmup + decideAfter, streams: len(m.Streams)}
	if len(rw.ws) == 0 && rw.cw == nil {
		return nil
	}
	rw.pass = c.passAfter(m, mult, lim, len(rw.ws) > 0 && len(rw.ws) == len(c.SLOs))
	return rw.stop
}

// watchedSLOs are the latency SLOs of c on the streams of m (an error rate is settled
// only by the run's end).
func (c *Config) watchedSLOs(m *sim.Model) []watched {
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
	return ws
}

// runWatch is what a watched run is judged on as it goes: its ceiling (nil: none), its
// latency SLOs, from when a verdict may be settled and from when a pass may, and how many
// streams it has.
type runWatch struct {
	cw         *ceilingWatch
	ws         []watched
	from, pass sim.Time
	streams    int
}

// settled says whether the run's verdict is settled, and whether as a failure.
func (rw *runWatch) settled(w sim.Watch) (stop, fail bool) {
	if rw.cw != nil && rw.cw.over() {
		return true, true
	}
	if w.Now() < rw.from || len(rw.ws) == 0 {
		return false, false
	}
	under := w.Now() >= rw.pass && (rw.cw == nil || rw.cw.under())
	for _, x := range rw.ws {
		fail, ok := x.read(w)
		if fail {
			return true, true
		}
		under = under && ok
	}
	if under {
		for i := range rw.streams {
			if w.Failed(i) > 0 {
				return false, false
			}
		}
	}
	return under, false
}

// stop is the run's Model.Watch: whether to stop it now.
func (rw *runWatch) stop(w sim.Watch) bool {
	if rw.cw != nil {
		rw.cw.update(w)
	}
	stop, fail := rw.settled(w)
	if !stop || rw.cw == nil {
		return stop
	}
	ok, full := rw.cw.cutOK(w)
	if ok {
		return true
	}
	// The run waits for a stop that keeps its busiest windows whole, or runs whole; a
	// failure does not where a node was busy all the cut window (saturated, it would
	// be every time): its peak then enters the means only where it is a whole window's
	// (probe).
	return fail && full
}

// ceilingWatch follows a watched run's nodes window by window for the ceiling
// (MaxUtilization): each node's busiest whole window so far, as a fraction of its cores
// (the figure metrics.Node.Peak takes the largest of at the end).
type ceilingWatch struct {
	ceiling float64
	window  sim.Time
	cores   []sim.Time
	peak    []float64
	whole   int  // the windows before it are in peak
	blind   bool // the engine does not hold the windows (a sink): nothing is known
	// After the warmup: the whole windows counted (from the first that starts after it),
	// and each node's sum of their busy fractions and of their squares.
	after, counted int
	sum, sumSq     []float64
	// cost is the costliest stream's service in seconds (a follower's apply included); 0
	// where a scan's rows add to it, which the closed form does not bound.
	cost float64
}

// ceilingWatch returns the ceiling's watch of model m, whose longest service of a request
// at a node is costliest (0: not bounded); nil without a ceiling.
func (c *Config) ceilingWatch(m *sim.Model, costliest sim.Time) *ceilingWatch {
	if !(c.MaxUtilization > 0 && c.MaxUtilization < 1) || m.Window <= 0 {
		return nil
	}
	n := len(m.Nodes)
	cw := &ceilingWatch{ceiling: c.MaxUtilization, window: m.Window, peak: make([]float64, n),
		after: int((m.Warmup + m.Window - 1) / m.Window), sum: make([]float64, n), sumSq: make([]float64, n)}
	for _, n := range m.Nodes {
		cw.cores = append(cw.cores, sim.Time(n.Cores))
	}
	cw.cost = costliest.Seconds()
	return cw
}

// update takes the windows that ended since the last call into the nodes' peaks.
func (cw *ceilingWatch) update(w sim.Watch) {
	cur := int(w.Now() / cw.window)
	for ; cw.whole < cur && !cw.blind; cw.whole++ {
		for n := range cw.peak {
			busy, ok := w.NodeBusy(n, cw.whole)
			if !ok {
				cw.blind = true
				break
			}
			u := float64(busy) / float64(cw.cores[n]*cw.window)
			cw.peak[n] = max(cw.peak[n], u)
			if cw.whole >= cw.after {
				cw.sum[n] += u
				cw.sumSq[n] += u * u
			}
		}
		if !cw.blind && cw.whole >= cw.after {
			cw.counted++
		}
	}
}

// over reports whether some node's busiest whole window so far is past the ceiling: the
// whole run's busiest window is too, so the run fails the ceiling alone.
func (cw *ceilingWatch) over() bool {
	if cw.blind {
		return false
	}
	for _, p := range cw.peak {
		if p > cw.ceiling {
			return true
		}
	}
	return false
}

// Settling a pass of the ceiling early: a node's windows after the warmup are
// independent draws of its busy fraction as long as the windows are much longer than its
// queue's relaxation time (seconds against the milliseconds of a run whose pass the SLOs
// settle early: passAfter), so the busiest of the windows still to come is under the
// ceiling, with little doubt, where their mean is ceilingSpread standard deviations of a
// window's busy fraction under it. The deviation is the larger of the one measured over
// the windows so far (at least ceilingWindows of them) and a closed form: a node busy u of
// c cores in a window W serves about u c W / s subrequests of mean service s, so that its
// busy time varies as a compound Poisson sum, by u c W E[s^2]/E[s]; with exponential
// services E[s^2] = 2 s^2 for each stream, and E[s^2]/E[s] is at most twice the costliest
// stream's cost s_max, so a window's busy fraction deviates by at most
// sqrt(2 s_max u / (c W)) (0.7% of the cores for the orders of docs/capacity.md: 4
// cores, 0.6 ms writes, 84% busy, windows of 5 s; the runs measure about 0.6%). Four
// deviations: 2.93 keep the largest of the 30-odd windows of a few minutes' run under
// the ceiling with a 95% chance (0.95^(1/30) is the normal's 99.83rd percentile), and
// one more covers the error of a mean measured over a few windows (two of its standard
// errors over 6 windows: 0.8 of a window's deviation).
const (
	ceilingSpread  = 4.0
	ceilingWindows = 6
)

// under reports whether every node's windows to come are settled under the ceiling: at
// least ceilingWindows whole windows after the warmup, and their mean busy fraction
// ceilingSpread deviations under it (the measured one or the closed form's, the larger).
func (cw *ceilingWatch) under() bool {
	if cw.blind || cw.counted < ceilingWindows || !(cw.cost > 0) {
		return false
	}
	k := float64(cw.counted)
	for n := range cw.sum {
		mean := cw.sum[n] / k
		sd := math.Sqrt(max(0, cw.sumSq[n]-k*mean*mean) / (k - 1))
		sd = max(sd, math.Sqrt(2*cw.cost*mean/(float64(cw.cores[n])*cw.window.Seconds())))
		if mean+ceilingSpread*sd >= cw.ceiling {
			return false
		}
	}
	return true
}

// cutOK reports whether a stop now leaves every node's busiest window one of its whole
// windows: the window the stop cuts short, counted with the whole service of the
// subrequests in it (more than the run keeps of it once stopped), is no busier than the
// node's busiest whole window so far. Where it is (a fraction of a window is noisier
// than a window), the run goes on to the next watch; full says that such a node's cores
// were busy all the cut window, as a saturated node's are every window, where waiting
// cannot help. A blind watch cannot tell, and lets the stop be.
func (cw *ceilingWatch) cutOK(w sim.Watch) (ok, full bool) {
	if cw.blind {
		return true, false
	}
	cur := int(w.Now() / cw.window)
	span := w.Now() - sim.Time(cur)*cw.window
	if span <= 0 {
		return true, false
	}
	ok = true
	for n, p := range cw.peak {
		busy, held := w.NodeBusy(n, cur)
		if !held {
			return true, false // past the run's last window: nothing is cut
		}
		if u := float64(busy) / float64(cw.cores[n]*span); u > p {
			ok, full = false, full || u >= 1
		}
	}
	return ok, full
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
