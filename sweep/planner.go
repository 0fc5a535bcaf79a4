package sweep

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/shardsim/shardsim/build"
	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/units"
)

// Run lengths (docs/capacity.md, "How long each run is"): a run that starts with empty
// queues measures a tail latency below the steady state's until its hottest queue has
// forgotten its start, which takes a few of that queue's relaxation times
// (metrics.Relaxation) and many near full load. So a search measures every run for at
// least settleRuns relaxation times after a warmup of settleWarmup of them, lengthening
// the scenario's duration where it is shorter, and never past the budget: a run the
// budget cannot settle is judged "unsettled", never passing.
const (
	// settleWarmup is the warmup, in relaxation times, of a lengthened run (the scenario's
	// own warmup when that is longer): the start's deficit decays about as exp(-t/tau).
	settleWarmup = 3
	// settleMargin lengthens a run a little past settleRuns relaxation times, because the
	// longer run measures its hottest node a little busier (its queue filled for longer)
	// and so a little slower to settle.
	settleMargin = 1.2
	// settleTries bounds the lengthenings of one run (each at least doubles it).
	settleTries = 12
)

// DefaultBudget is the longest simulated run (warmup included) a search chooses unless
// told otherwise (--budget).
const DefaultBudget = time.Hour

// Unsettled is the binding of a multiple whose runs the budget could not make long enough
// for the hottest queue to settle (settleRuns relaxation times after a warmup) and that
// passed all the same: a pass of an unsettled run is no pass, since its tail is
// understated; a failure is a failure.
const Unsettled = "unsettled"

// Offered is the binding of a multiple at which the utilization law offers some node all
// of its cores or more: no run there is an answer, however short runs measured it.
const Offered = "offered"

// settleOf returns the longest relaxation time of a run's nodes (seconds; +Inf for a node
// at 100%) and the time it measured after its warmup.
func settleOf(r *metrics.Run) (tau, measured float64) {
	for _, n := range r.Nodes {
		tau = max(tau, n.Settle)
	}
	return tau, (r.Elapsed - min(r.Warmup, r.Elapsed)).Seconds()
}

// settled reports whether a run measured settleRuns relaxation times of its slowest
// queue after its warmup. A saturated or interrupted run is judged on what it measured
// elsewhere (saturated), never here.
func (c *CapacityConfig) settled(r *metrics.Run) bool {
	if !r.Complete() {
		return true
	}
	tau, measured := settleOf(r)
	return measured >= c.relaxations()*tau
}

// relaxations is how many relaxation times a run measures after its warmup: Relaxations,
// at least settleRuns; defaultRelaxations when not given.
func (c *CapacityConfig) relaxations() float64 {
	if c.Relaxations <= 0 {
		return defaultRelaxations
	}
	return max(c.Relaxations, settleRuns)
}

// defaultRelaxations: ten relaxation times settle the queue's mean, but its 99th
// percentile, measured over them, still leans low by more than the search's 1%
// resolution near full load. On M/M/1 at p99 < 300 ms (the answer at 98.5% busy), 10 gave
// 1.4140625 for all three seeds against the exact 1.4066, 20 gave 1.40625 with the
// interval covering it (sweep/planner_test.go, TestCapacityMM1Settled).
const defaultRelaxations = 20

// settledLength is the run a search would make for a run that measured r: the duration
// and warmup in whole seconds, settleRuns relaxation times (with settleMargin) after
// settleWarmup of them or the run's own warmup. ok is false when the queue never settles.
func (c *CapacityConfig) settledLength(r *metrics.Run) (duration, warmup float64, ok bool) {
	tau, _ := settleOf(r)
	if math.IsInf(tau, 1) || math.IsNaN(tau) {
		return 0, 0, false
	}
	warmup = math.Ceil(max(r.Warmup.Seconds(), settleWarmup*tau))
	duration = math.Ceil(warmup + c.relaxations()*settleMargin*tau)
	return duration, warmup, true
}

// budget is the longest run a search may choose, in seconds.
func (c *CapacityConfig) budget() float64 {
	if c.Budget > 0 {
		return c.Budget.Seconds()
	}
	return DefaultBudget.Seconds()
}

// unsettledReason says why a run is not settled: how long its slowest queue takes to
// settle, what the run measured, and what the budget allows.
func (c *CapacityConfig) unsettledReason(r *metrics.Run) string {
	budget := c.budget()
	tau, measured := settleOf(r)
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
	d, _, _ := c.settledLength(r)
	over := ", over the budget of " + units.Seconds(budget, units.Short)
	if d <= budget {
		over = " (not made: the run failed alone)"
	}
	return fmt.Sprintf("node %d (%s busy) settles in about %s: a run of %s is needed%s (measured %s)",
		node, units.Percent(load, 2), units.Seconds(tau, units.Short), units.Seconds(d, units.Short), over, units.Seconds(measured, units.Short))
}

// lengthen returns the run at (m, r) measured long enough to settle: the scenario's own
// run when it did, else the same seed and multiple run again for settledLength, up to
// settleTries times, while that is within the budget. load builds the scenario with the
// extra overrides.
//
// With one replication a run that fails an SLO is not lengthened: starting empty
// understates its tail, so a longer run would fail it too (the understated figure already
// fails). With more, every run is, since a failing run's figure enters the means.
func (c *CapacityConfig) lengthen(first *metrics.Run, simulate func(duration, warmup float64) (*metrics.Run, error)) (*metrics.Run, error) {
	run := first
	for i := 0; i < settleTries && !c.settled(run) && (c.passes(run) || c.pooling() || c.lengthenAll); i++ {
		d, w, ok := c.settledLength(run)
		if !ok || d > c.budget() {
			break
		}
		// At least twice as long each time, so that a queue whose estimate grows with
		// the run (its node measured busier) is settled or over the budget within a few
		// tries.
		d = min(max(d, math.Ceil(2*run.Elapsed.Seconds())), c.budget())
		next, err := simulate(d, w)
		if err != nil {
			return nil, err
		}
		run = next
	}
	return run, nil
}

// pooling reports whether runs are judged in means over replications.
func (c *CapacityConfig) pooling() bool { return c.Replications > 1 || c.Precision > 0 }

// passes reports whether one run meets every SLO alone.
func (c *CapacityConfig) passes(r *metrics.Run) bool {
	return metrics.Assess(c.SLOs, c.MaxErrors, []*metrics.Run{r}).OK
}

// lengthOverrides sets a run's duration and warmup, in whole seconds.
func lengthOverrides(m float64, duration, warmup float64) []scenarios.Override {
	flag := fmt.Sprintf("capacity run length at multiple %v", m)
	return []scenarios.Override{
		{Flag: flag, Key: "duration", Value: strconv.Quote(strconv.FormatFloat(duration, 'f', 0, 64) + "s")},
		{Flag: flag, Key: "warmup", Value: strconv.Quote(strconv.FormatFloat(warmup, 'f', 0, 64) + "s")},
	}
}

// offeredLimit is what the utilization law says of a variant at multiple 1: the highest
// load (a fraction of its cores) any node is offered at the streams' peak rates, and that
// node (build.Explain, the figures `explain` prints). ok is false where the law's figures
// are not the run's: a cache absorbs reads, ranges split, operator actions add cores, a
// migration or a rebalance moves shards, or a closed-loop stream slows down as it queues.
type offeredLimit struct {
	load  float64
	node  int
	rates string // the streams' mean rates, for the closing line
	ok    bool
}

func offeredOf(v *scenarios.Variant) offeredLimit {
	s := v.Spec
	ex := build.Explain(v.Name, s)
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
	lim.ok = lim.load > 0 && s.Cache == nil && s.Split == nil && len(s.Actions) == 0 && s.Migration == nil && s.Rebalance == nil
	for i := range s.Streams {
		if s.Streams[i].Clients > 0 {
			lim.ok = false
		}
	}
	return lim
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
		if sc, err = opts.load(s.point, nil, 0); err != nil {
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
	e := Estimated(xs)
	if !(e.Mean > 0) || math.IsNaN(e.Lo) {
		return false
	}
	return max(e.Mean-e.Lo, e.Hi-e.Mean) <= precision*e.Mean
}

// settleSweep lengthens a sweep's run as capacity does (every run, passing or not), when
// the sweep has a RunBudget; otherwise it returns the run as it is.
func (c *Config) settleSweep(first *metrics.Run, simulate func(duration, warmup float64) (*metrics.Run, error)) (*metrics.Run, error) {
	if c.RunBudget <= 0 {
		return first, nil
	}
	return c.settler().lengthen(first, simulate)
}

// settler is the capacity configuration whose run lengths a sweep with a RunBudget
// shares.
func (c *Config) settler() *CapacityConfig {
	return &CapacityConfig{Config: *c, Budget: c.RunBudget, lengthenAll: true}
}
