package runner

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios"
)

// Run lengths (docs/capacity.md, "How long each run is"): a run that starts with empty
// queues measures a tail latency below the steady state's until its hottest queue has
// forgotten its start, which takes a few of that queue's relaxation times
// (metrics.Relaxation) and many near full load. So a capacity search (and a sweep with
// --budget) measures every run for at least SettleRuns relaxation times after a warmup of
// settleWarmup of them, lengthening the scenario's duration where it is shorter, and never
// past the budget: a run the budget cannot settle is judged "unsettled", never passing.
const (
	// settleWarmup is the warmup, in relaxation times, of a lengthened run (the scenario's
	// own warmup when that is longer): the start's deficit decays about as exp(-t/tau).
	settleWarmup = 3
	// settleMargin lengthens a run a little past SettleRuns relaxation times, because the
	// longer run measures its hottest node a little busier (its queue filled for longer)
	// and so a little slower to settle.
	settleMargin = 1.2
	// settleTries bounds the lengthenings of one run (each at least doubles it).
	settleTries = 12
)

// SettleRuns is how many relaxation times of the hottest node's queue a run must measure
// for its tail latency to be near the steady state's: the least a run is lengthened to.
const SettleRuns = 10

// DefaultBudget is the longest simulated run (warmup included) a search chooses unless
// told otherwise (--budget).
const DefaultBudget = time.Hour

// defaultRelaxations: ten relaxation times settle the queue's mean, but its 99th
// percentile, measured over them, still leans low by more than the search's 1%
// resolution near full load. On M/M/1 at p99 < 300 ms (the answer at 98.5% busy), 10 gave
// 1.4140625 for all three seeds against the exact 1.4066, 20 gave 1.40625 with the
// interval covering it (capacity/settled_test.go, TestCapacityMM1Settled).
const defaultRelaxations = 20

// Lengths chooses how long each run is.
type Lengths struct {
	// Budget is the longest run, warmup included (0: DefaultBudget).
	Budget time.Duration
	// Relaxations is how many relaxation times of the hottest queue a run measures after
	// its warmup (at least SettleRuns; 0: defaultRelaxations).
	Relaxations float64
	// Again, when set, says whether an unsettled run is made again, longer; without it
	// every unsettled run is.
	Again func(r *metrics.Run) bool
	// Multiple is the load multiple the run is made at, named in its overrides.
	Multiple float64
}

// SettleOf returns the longest relaxation time of a run's nodes (seconds; +Inf for a node
// at 100%) and the time it measured after its warmup.
func SettleOf(r *metrics.Run) (tau, measured float64) {
	for _, n := range r.Nodes {
		tau = max(tau, n.Settle)
	}
	return tau, (r.Elapsed - min(r.Warmup, r.Elapsed)).Seconds()
}

// Settled reports whether a run measured Relaxed relaxation times of its slowest queue
// after its warmup. A saturated or interrupted run is judged on what it measured
// elsewhere (saturated), never here; a run stopped once its verdict was settled
// (Decided) is judged on what it measured by then.
func (l *Lengths) Settled(r *metrics.Run) bool {
	if !r.Complete() || r.Decided {
		return true
	}
	tau, measured := SettleOf(r)
	return measured >= l.Relaxed()*tau
}

// Relaxed is how many relaxation times a run measures after its warmup: Relaxations, at
// least SettleRuns; defaultRelaxations when not given.
func (l *Lengths) Relaxed() float64 {
	if l.Relaxations <= 0 {
		return defaultRelaxations
	}
	return max(l.Relaxations, SettleRuns)
}

// Needed is the run a search would make for a run that measured r: the duration and
// warmup in whole seconds, Relaxed relaxation times (with settleMargin) after
// settleWarmup of them or the run's own warmup. ok is false when the queue never settles.
func (l *Lengths) Needed(r *metrics.Run) (duration, warmup float64, ok bool) {
	tau, _ := SettleOf(r)
	if math.IsInf(tau, 1) || math.IsNaN(tau) {
		return 0, 0, false
	}
	warmup = math.Ceil(max(r.Warmup.Seconds(), settleWarmup*tau))
	duration = math.Ceil(warmup + l.Relaxed()*settleMargin*tau)
	return duration, warmup, true
}

// BudgetSeconds is the longest run a search may choose, in seconds.
func (l *Lengths) BudgetSeconds() float64 {
	if l.Budget > 0 {
		return l.Budget.Seconds()
	}
	return DefaultBudget.Seconds()
}

// Lengthen returns first measured long enough to settle: first when it did, else the same
// run made again (simulate) for Needed's length, up to settleTries times, while that is
// within the budget and Again allows it.
func (l *Lengths) Lengthen(first *metrics.Run, simulate func(duration, warmup float64) (*metrics.Run, error)) (*metrics.Run, error) {
	run := first
	for i := 0; i < settleTries && !l.Settled(run) && (l.Again == nil || l.Again(run)); i++ {
		d, w, ok := l.Needed(run)
		if !ok || d > l.BudgetSeconds() {
			break
		}
		// At least twice as long each time, so that a queue whose estimate grows with
		// the run (its node measured busier) is settled or over the budget within a few
		// tries.
		d = min(max(d, math.Ceil(2*run.Elapsed.Seconds())), l.BudgetSeconds())
		next, err := simulate(d, w)
		if err != nil {
			return nil, err
		}
		run = next
	}
	return run, nil
}

// Overrides sets a run's duration and warmup, in whole seconds.
func (l *Lengths) Overrides(duration, warmup float64) []scenarios.Override {
	flag := fmt.Sprintf("capacity run length at multiple %v", l.Multiple)
	return []scenarios.Override{
		{Flag: flag, Key: "duration", Value: strconv.Quote(strconv.FormatFloat(duration, 'f', 0, 64) + "s")},
		{Flag: flag, Key: "warmup", Value: strconv.Quote(strconv.FormatFloat(warmup, 'f', 0, 64) + "s")},
	}
}
