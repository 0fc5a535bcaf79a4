package capacity

import (
	"fmt"
	"math"
	"strconv"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/runs/runner"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Unsettled is the binding of a multiple whose runs the budget could not make long enough
// for the hottest queue to settle (runner.SettleRuns relaxation times after a warmup) and that
// passed all the same: a pass of an unsettled run is no pass, since its tail is
// understated; a failure is a failure.
const Unsettled = "unsettled"

// Offered is the binding of a multiple at which the utilization law offers some node all
// of its cores or more: no run there is an answer, however short runs measured it.
const Offered = "offered"

// lengths is how long the search's runs at multiple m are (runner.Lengths). With one
// replication a run that fails an SLO is not lengthened: starting empty understates its
// tail, so a longer run would fail it too (the understated figure already fails). With
// more, every run is, since a failing run's figure enters the means; and a sweep's
// (lengthenAll), whose rows show every figure.
func (c *Config) lengths(m float64) *runner.Lengths {
	return &runner.Lengths{Budget: c.Budget, Relaxations: c.Relaxations, Multiple: m,
		Again: func(r *metrics.Run) bool { return c.passes(r) || (c.pooling() || c.lengthenAll) && !c.overCeiling(r) }}
}

// overCeiling reports whether run r's busiest node passed the ceiling at peak
// (MaxUtilization): a verdict a longer run does not change (more windows make the
// busiest one no less busy), so such a run is not lengthened.
func (c *Config) overCeiling(r *metrics.Run) bool {
	_, peak := metrics.BusiestAtPeak(r)
	return c.MaxUtilization > 0 && c.MaxUtilization < 1 && peak > c.MaxUtilization
}

// unsettledReason says why a run is not settled: how long its slowest queue takes to
// settle, what the run measured, and what the budget allows.
func (c *Config) unsettledReason(r *metrics.Run) string {
	lengths := c.lengths(0)
	budget := lengths.BudgetSeconds()
	tau, measured := runner.SettleOf(r)
	node := 0
	for i, n := range r.Nodes {
		if n.Settle == tau {
			node = i
			break
		}
	}
	load := 0.0
	if node < len(r.Nodes) {
		load = r.Nodes[node].Utilization
	}
	if math.IsInf(tau, 1) {
		return fmt.Sprintf("node %d is busy %s of the time: its queue never settles", node, units.Percent(load, 2))
	}
	d, _, _ := lengths.Needed(r)
	over := ", over the budget of " + units.Seconds(budget, units.Short)
	if d <= budget {
		over = " (not made: the run failed alone)"
	}
	return fmt.Sprintf("node %d (%s busy) settles in about %s: a run of %s is needed%s (measured %s)",
		node, units.Percent(load, 2), units.Seconds(tau, units.Short), units.Seconds(d, units.Short), over, units.Seconds(measured, units.Short))
}

// pooling reports whether runs are judged in means over replications.
func (c *Config) pooling() bool { return c.Replications > 1 || c.Precision > 0 }

// passes reports whether one run meets every SLO alone, its busiest node at peak within
// the ceiling (MaxUtilization).
func (c *Config) passes(r *metrics.Run) bool {
	return c.assess([]*metrics.Run{r}).OK
}

// assess judges runs together: every SLO, the error rate and the ceiling on the busiest
// node's load at peak (metrics.AssessWithin).
func (c *Config) assess(runs []*metrics.Run) metrics.Assessment {
	return metrics.AssessWithin(c.SLOs, c.MaxErrors, c.MaxUtilization, runs)
}

// offeredLimit is what the utilization law says of a variant at multiple 1: the highest
// load (a fraction of its cores) any node is offered at the streams' peak rates, and that
// node (compile.Explain, the figures `explain` prints). ok is false where the law's figures
// are not the run's: a cache absorbs reads, ranges split, operator actions add cores, a
// migration or a rebalance moves shards, or a closed-loop stream slows down as it queues.
type offeredLimit struct {
	load  float64
	node  int
	rates string // the streams' mean rates, for the closing line
	ok    bool
	// steady: the law applies and every stream's rate is constant over the run, so that a
	// run's figures so far lean low against the whole run's (watcher).
	steady bool
	// held: the engine holds the windows of a run as it goes (no sink streams them away),
	// so that a watched run's stop leaves it a busiest window the whole run has too
	// (ceilingWatch.cutOK).
	held bool
	// window is the runs' window (0: not known).
	window sim.Time
	// costliest is the longest service of a request at a node, what a mechanism adds
	// included (costliest), 0 where a scan's rows add to it.
	costliest sim.Time
	// spread is 2 s_max / (c W) for the hottest node (c cores, windows of W seconds, the
	// costliest stream's cost s_max): a window's busy fraction u deviates by at most
	// sqrt(spread u) (ceilingWatch.under); 0 where it is not known.
	spread float64
}

func offeredOf(v *scenarios.Variant) offeredLimit {
	s := v.Spec
	ex := compile.Explain(v.Name, s)
	var lim offeredLimit
	for _, n := range ex.Nodes {
		if n.Peak > lim.load {
			lim.load, lim.node = n.Peak, n.ID
		}
	}
	for i, st := range ex.Streams {
		if i > 0 {
			lim.rates += " and "
		}
		lim.rates += units.Count(int64(math.Round(st.MeanRate))) + " " + st.Name + "/s"
	}
	lim.ok = lim.load > 0 && lawHolds(s)
	lim.steady = lim.ok
	lim.held = !s.Streamed()
	lim.window = s.Window
	lim.costliest = costliest(s)
	if lim.ok && lim.node < len(s.Nodes) && s.Window > 0 {
		lim.spread = 2 * lim.costliest.Seconds() / (float64(s.Nodes[lim.node].Cores) * s.Window.Seconds())
	}
	for _, st := range ex.Streams {
		if st.PeakRate != st.MeanRate {
			lim.steady = false
		}
	}
	return lim
}

// lawHolds says whether the utilization law's offered loads are the loads a run of s
// meets: no mechanism that changes them (scenario.Resolved.LoadsChange, which each
// mechanism answers for itself), no closed-loop clients.
func lawHolds(s *scenario.Resolved) bool {
	if s.LoadsChange() {
		return false
	}
	for i := range s.Streams {
		if s.Streams[i].Clients > 0 {
			return false
		}
	}
	return true
}

// costliest is the longest service a request of s takes at a node, what a mechanism
// adds included (scenario.Resolved.LongestAdded), or 0 where a scan's rows add to it,
// which no constant bounds.
func costliest(s *scenario.Resolved) sim.Time {
	cost := s.LongestAdded()
	for i := range s.Streams {
		if s.Streams[i].RowCost > 0 {
			return 0
		}
		cost = max(cost, s.Streams[i].Cost)
	}
	return cost
}

// wholePeak reports whether run r's busiest node had its busiest window among the
// windows r measured whole: a figure the whole run of its seed has too, at most its peak.
// A run stopped early may have it in the window its stop cut short (decide.go).
func (l offeredLimit) wholePeak(r *metrics.Run) bool {
	n, _ := metrics.BusiestAtPeak(r)
	if n < 0 || !r.Decided {
		return true
	}
	return l.window > 0 && sim.Time(r.Nodes[n].PeakWindow+1)*l.window <= r.Elapsed
}

// overOffered says, for multiple m, whether the utilization law offers a node all of its
// cores or more there, and in words.
func (l offeredLimit) overOffered(m float64) (bool, string) {
	if !l.ok || m*l.load < 1 {
		return false, ""
	}
	return true, fmt.Sprintf("node %d is offered %s of its cores at the streams' peak rates (the utilization law, as explain computes it): no run there is an answer",
		l.node, units.Percent(m*l.load, 2))
}

// lawStart is the hottest node's load, as the utilization law predicts it, at which a
// search starts: the answers of the searches that hold the SLOs up to near the node's
// cores lie just under the law's limit (docs/capacity.md's lie at 98% to 99% busy), so
// a search starts a little under it and brackets the answer between there and the limit.
const lawStart = 0.97

// lawGrid rounds the multiples a search starts from to 1/256, so that the multiples it
// bisects to read in a few decimals (0.98828125) and rerun as printed.
const lawGrid = 256

// lawBelow is the load, as the law predicts it, that a search tries when lawStart fails,
// before it halves: an SLO that binds a little below the law's limit is bracketed there.
const lawBelow = 0.9

// start is where a search starts, the multiple it tries next when the start passes and
// the one below it when it fails (find): where the law applies, the multiples that offer
// the hottest node lawStart and lawBelow of its top, and the smallest one on the grid that
// offers it its top. The top is all of its cores, which is not run, or the ceiling
// (--max-utilization) where one is set: a node's busiest window passes the load the law
// offers it, so an answer under a ceiling lies just under the multiple that offers the
// node the ceiling, and the search brackets it between there and the start. (0, 0, 0)
// elsewhere, which starts from 1.
//
// Under a ceiling the start is no higher than the load at which a run's pass of the
// ceiling is settled early (ceilingWatch.under: ceilingSpread deviations of a window's
// busy fraction under it), so that the start, which passes where the ceiling binds, is a
// short run rather than a whole one.
func (l offeredLimit) start(ceiling float64) (start, next, below float64) {
	if !l.ok {
		return 0, 0, 0
	}
	top := 1.0
	at := lawStart
	if ceiling > 0 && ceiling < 1 {
		top = ceiling
		if l.spread > 0 {
			at = min(at, 1-ceilingSpread*math.Sqrt(l.spread*ceiling)/ceiling)
		}
	}
	start = math.Floor(at*top/l.load*lawGrid) / lawGrid
	next = math.Ceil(top/l.load*lawGrid) / lawGrid
	below = math.Floor(lawBelow*top/l.load*lawGrid) / lawGrid
	if below < minMultiple || start >= next || below >= start {
		return 0, 0, 0
	}
	return start, next, below
}

// exactMultiple writes a multiple as the search ran it: the shortest decimal that reads
// back as the same number (1.199219), so that a rerun at the printed value is the run.
func exactMultiple(m float64) string {
	return strconv.FormatFloat(m, 'f', -1, 64)
}

// findLimit reads the utilization law's limit of the search's variant at its point, once.
func (s *searchState) findLimit() error {
	var err error
	s.limitOnce.Do(func() {
		opts := s.c.Config
		opts.Options.Variants = []string{s.variant}
		var sc *scenarios.Scenario
		if sc, err = opts.Load(s.point, nil, 0); err != nil {
			return
		}
		s.limit = offeredOf(sc.Variants[0])
	})
	return err
}

// precise reports whether the replications' own answers are as sure as precision asks:
// their 95% interval (never narrower than the searches' brackets) is within precision of
// their mean on either side, or every answer's bracket holds one common multiple, so that
// the seeds agree on the pass or fail of every multiple searched.
func precise(per []found, precision float64) bool {
	if len(per) < 2 {
		return false
	}
	xs := make([]float64, len(per))
	lo, hiMin, hiMax := math.Inf(1), math.Inf(1), 0.0
	maxLo := 0.0
	for i, f := range per {
		xs[i] = f.lo
		lo, maxLo = min(lo, f.lo), max(maxLo, f.lo)
		h := f.hi
		if math.IsNaN(h) {
			h = math.Inf(1)
		}
		hiMin, hiMax = min(hiMin, h), max(hiMax, h)
	}
	if maxLo < hiMin {
		return true // one bracket holds every answer
	}
	e := replicas.Estimated(xs)
	if !(e.Mean > 0) || math.IsNaN(e.Lo) {
		return false
	}
	return max(e.Mean-e.Lo, e.Hi-e.Mean) <= precision*e.Mean
}
