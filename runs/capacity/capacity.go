package capacity

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/runs/runner"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Require says which answer a capacity search gives when it has replications.
type Require uint8

const (
	// RequireMean: at the answer, each SLO's statistic averaged over the replications is
	// under its bound (and so is the mean error rate).
	RequireMean Require = iota
	// RequireAll: at the answer, every replication meets every SLO on its own: the robust
	// answer, at or below RequireMean's.
	RequireAll
)

func (r Require) String() string {
	if r == RequireAll {
		return "all"
	}
	return "mean"
}

// ParseRequire reads "mean" or "all".
func ParseRequire(s string) (Require, error) {
	switch s {
	case "mean":
		return RequireMean, nil
	case "all":
		return RequireAll, nil
	}
	return 0, fmt.Errorf("--require %q: want mean or all", s)
}

// Config says what capacity to search for.
type Config struct {
	sweep.Config
	SLOs []sweep.SLO
	// MaxErrors is the largest acceptable fraction (0..1) of failed requests, over every
	// stream and every cause of failure (rejected, throttled, timed out, limited, lock).
	MaxErrors float64
	// Tolerance is the bisection's relative precision (0.01: the answer is within 1%).
	Tolerance float64
	// MaxMultiple caps the search; a design that meets its SLOs there is reported at it.
	MaxMultiple float64
	// Require picks the answer reported as Multiple; both are computed.
	Require Require
	// Budget is the longest simulated run, warmup included, that a search may choose to
	// settle the hottest queue (0: runner.DefaultBudget); a multiple the budget cannot settle is
	// judged Unsettled.
	Budget time.Duration
	// Precision, when above 0, adds replications one at a time (up to MaxReplications)
	// until the 95% interval of the replications' own answers is within Precision of
	// their mean on either side, or every replication's answer lies in one bracket of the
	// search (the seeds agree on every multiple's pass or fail).
	Precision       float64
	MaxReplications int
	// Relaxations is how many relaxation times of the hottest queue each run measures
	// after its warmup (at least runner.SettleRuns; by default defaultRelaxations).
	Relaxations float64
	// lengthenAll lengthens failing runs too (a sweep's, whose rows show every figure).
	lengthenAll bool
	// Made, when set, holds runs made before by the same search (an interrupted one's, to
	// resume it), in the order they were made: a run it holds is taken, not simulated.
	// Record, when set, is told each run as it is made, one call at a time; its error
	// stops the search.
	Made   map[RunID][]*metrics.Run
	Record func(id RunID, r *metrics.Run) error
	// wholeRuns starts every search from 1 and runs every run to its end, as the search
	// did before it started from the utilization law and stopped the runs whose verdict
	// was settled: the tests weigh what those save against it.
	wholeRuns bool
}

// Probe is what one multiple measured over a set of replications.
type Probe struct {
	Multiple float64
	Seeds    []uint64
	// Assessment judges the SLOs over the replications together (each statistic's mean
	// under its bound); Passes counts the replications that meet every SLO alone.
	Assessment metrics.Assessment
	Passes     int
	// Alone is the assessment of the first replication that fails alone (its Binding
	// empty when none does): what binds where the means pass and a seed does not.
	Alone metrics.Assessment
	// Stats[i] is SLO i's statistic over the replications (ms, or a fraction for an error
	// rate); undefined when a replication has none.
	Stats     []replicas.Estimate
	ErrorRate replicas.Estimate
	Failures  [len(metrics.Causes)]replicas.Estimate // failed requests per cause, over every stream
	// NodeLoad is the hottest node's utilization over the run (0..1 of its cores), and
	// HottestNode the node hottest in most replications.
	NodeLoad    replicas.Estimate
	HottestNode int
	// PeakLoad is the busiest node's load in its busiest window (metrics.BusiestAtPeak),
	// the figure the ceiling (MaxUtilization) bounds, and PeakNode that node in most
	// replications.
	PeakLoad replicas.Estimate
	PeakNode int
	// ShardLoad is the hottest shard's utilization over the run (0..1 of its node's
	// cores), and HottestShard the shard hottest in most replications.
	ShardLoad    replicas.Estimate
	HottestShard int
	// Bottleneck is what binds, the most common over the replications (see Row).
	Bottleneck metrics.Bottleneck
	Agree      int
	Saturated  int // replications whose backlog diverged
	// Unsettled counts the replications whose run the budget could not make long enough
	// for the hottest queue to settle (settled), and Why says so for the first of them.
	Unsettled int
	Why       string
	// Settle is the longest relaxation time (seconds) of a replication's hottest node
	// (metrics.Node.Settle), and Measured the shortest time a replication measured after
	// its warmup: a Settle that is not small beside Measured says the runs ended before
	// the hottest queue reached its steady state, so their tail latency is understated.
	Settle, Measured float64
}

// OK reports whether the probe meets the SLOs as req asks. A probe with an unsettled
// replication does not: its runs understate the tail.
func (p *Probe) OK(req Require) bool {
	if req == RequireAll {
		return p.Passes == len(p.Seeds)
	}
	return p.Assessment.OK && p.Unsettled == 0
}

// unsettledOnly reports whether the probe fails as req asks only because some of its
// passing runs are unsettled.
func (p *Probe) unsettledOnly(req Require) bool {
	if p.Unsettled == 0 {
		return false
	}
	if req == RequireAll {
		return p.Passes+p.Unsettled == len(p.Seeds)
	}
	return p.Assessment.OK
}

// Split reports whether the replications disagree: some meet every SLO and some do not.
func (p *Probe) Split() bool { return p.Passes > 0 && p.Passes < len(p.Seeds) }

// Answer is the answer for one point and variant.
type Answer struct {
	Point   sweep.Point
	Variant string
	Require Require
	// Multiple is the answer: the largest load_factor found to meet every SLO as Require
	// asks (0: not even the smallest tried). MeanAnswer and AllAnswer are both answers;
	// Multiple is one of them.
	Multiple              float64
	MeanAnswer, AllAnswer float64
	// Failed is the smallest multiple above Multiple that the search saw fail (NaN when
	// nothing failed up to MaxMultiple). Binding names what failed there: an SLO as
	// written, "errors" (the error rate over every stream and cause passed MaxErrors), or
	// "saturated" (a run's backlog diverged); Reason says why in words.
	Failed          float64
	Binding, Reason string
	// At and Above are the probes at Multiple and at Failed (nil when there is none).
	At, Above *Probe
	// Probes are every multiple judged with every replication, in increasing order.
	Probes []Probe
	// PerReplication[r] is replication r's own answer, found by a search of its own (0
	// when it fails at the smallest multiple, the cap when it never fails); Spread
	// summarizes them, its 95% interval widened to the searches' resolution (from the
	// lowest answer to the highest multiple a replication failed at) where that is wider.
	// With one replication it is the answer itself.
	PerReplication []float64
	// PerFailed[r] is the smallest multiple replication r's own search saw fail (NaN:
	// none): its answer lies between PerReplication[r] and it.
	PerFailed []float64
	Spread    replicas.Estimate
	// Check and CheckAbove are one run each at a seed no search used (seed + replications)
	// at Multiple and at Failed: what a rerun of the answer may give. Nil when there is
	// no such multiple.
	Check, CheckAbove *Probe
	// NoLoad says the search stopped because an SLO is below the latency with no load
	// (belowNoLoad), which Reason gives: no multiple meets it, and no resource binds.
	NoLoad bool
	// Unsettled says that what failed first above Multiple is Unsettled: the budget
	// could not buy runs long enough there, so Multiple is a floor, not the answer.
	// OfferedAt is the smallest multiple at which the utilization law offers a node all
	// its cores (+Inf when it does not apply); no answer is at or above it.
	Unsettled bool
	OfferedAt float64
	// Plan is the scenario's rates at multiple 1, in words ("10,000 create_order/s and
	// 4,000 get_orders/s"), for the closing line.
	Plan string
	// Evaluations counts the multiples the answer's search judged; Runs the simulations
	// made for this point and variant, all searches and checks together, lengthened runs
	// counted once each; SimSeconds is the simulated time of those runs (their lengths
	// added, the shorter runs that a lengthened one replaced left out) and Wall the time
	// the search took.
	Evaluations, Runs int
	SimSeconds        float64
	Wall              time.Duration
	// Samples are every simulation made, by multiple then seed.
	Samples []Sample
}

// Sample is one simulation of a search: a multiple and a seed, whether it met every SLO
// alone, and each SLO's statistic (nil when the stream completed nothing).
type Sample struct {
	Multiple float64
	Seed     uint64
	OK       bool
	Stats    []*float64
}

// minMultiple is the smallest load multiple tried.
const minMultiple = 1.0 / 1024

// Run finds, for every point and variant, the largest multiple of all the
// scenario's rates (load_factor) at which every SLO holds and the error rate stays at or
// under MaxErrors, as metrics.Assess judges them, in three searches:
//
//   - each replication alone (seed + r), giving the spread of the answer over seeds;
//   - every replication meeting every SLO alone (RequireAll);
//   - the statistics averaged over the replications under their bounds, no replication
//     saturated (RequireMean).
//
// Each search brackets the answer (from 1 by doubling or halving, or from the
// replications' own answers) and bisects until the bracket is within Tolerance; runs are
// shared between searches. Then the answer is checked at a fresh seed, at the answer and
// just above it. Results do not depend on Parallel.
func Run(c Config) ([]Answer, error) {
	cp, err := NewPlan(&c)
	if err != nil {
		return nil, err
	}
	out := make([]Answer, len(cp.searches))
	all := make([]int, len(cp.searches))
	for i := range all {
		all[i] = i
	}
	err = cp.RunItems(all, func(i int, res Answer) error { out[i] = res; return nil })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Plan is a capacity search expanded into its work items, one search per point and
// variant in point order then variant order, with every point loaded and validated.
type Plan struct {
	c        *Config
	searches []*searchState
	// Name and SHA256 are the scenario's name and the hash of its text.
	Name, SHA256 string
	// Variants[i] is search i's variant as loaded at its point (replication 0).
	Variants []*scenarios.Variant
}

// Config is the search's configuration.
func (cp *Plan) Config() *Config { return cp.c }

// Search describes search i: its point, variant and first seed, the scenario's
// load_factor and the largest multiple it may search.
func (cp *Plan) Search(i int) (p sweep.Point, variant string, seed uint64, lf, most float64) {
	s := cp.searches[i]
	return s.point, s.variant, s.seed, s.lf, s.most
}

// RunAt is one run of a search: its multiple, replication and figures.
type RunAt struct {
	Multiple    float64      `json:"multiple"`
	Replication int          `json:"replication"`
	Run         *metrics.Run `json:"run"`
}

// Runs returns every run search i made, by multiple then replication.
func (cp *Plan) Runs(i int) []RunAt {
	s := cp.searches[i]
	var out []RunAt
	for k, r := range s.runs {
		out = append(out, RunAt{Multiple: k.m, Replication: k.r, Run: r})
	}
	slices.SortFunc(out, func(a, b RunAt) int {
		if c := cmp.Compare(a.Multiple, b.Multiple); c != 0 {
			return c
		}
		return a.Replication - b.Replication
	})
	return out
}

// Replay answers one search (its point, variant, first seed, load_factor and largest
// multiple, as Plan.Search gives them) from the runs it made, read back from a cluster's
// files: a run the search needs that runs do not hold is a *MissingRunError, never a
// simulation.
func Replay(c *Config, p sweep.Point, variant string, seed uint64, lf, most float64, runs []RunAt) (Answer, error) {
	s := newSearch(c, p, variant, seed, lf, most)
	s.replay, s.loop = true, runner.New(runner.Options{Parallel: 1})
	for _, r := range runs {
		s.runs[runKey{r.Multiple, r.Replication}] = r.Run
	}
	s.count = len(s.runs)
	return s.answer()
}

// defaults fills in the tolerance and the cap, and checks the rest.
func (c *Config) defaults() error {
	if c.Tolerance <= 0 {
		c.Tolerance = 0.01
	}
	if c.MaxMultiple <= 0 {
		c.MaxMultiple = 64
	}
	if len(c.SLOs) == 0 {
		return fmt.Errorf("capacity needs at least one --slo")
	}
	if c.Replications < 1 || c.Parallel < 1 {
		return fmt.Errorf("replications and parallel must be at least 1")
	}
	return c.CheckRuns(1)
}

// NewPlan loads every point of the search (replication 0) and lists its searches.
func NewPlan(c *Config) (*Plan, error) {
	if err := c.defaults(); err != nil {
		return nil, err
	}
	cp := &Plan{c: c}
	for pi, p := range sweep.Points(c.Axes) {
		if c.Stop != nil && c.Stop() {
			return nil, sweep.ErrInterrupted
		}
		sc, err := c.Load(p, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", sweep.Describe(c.Axes, p), err)
		}
		if pi == 0 {
			if err := c.CheckRuns(len(sc.Variants)); err != nil {
				return nil, err
			}
			cp.Name, cp.SHA256 = sc.Name, sc.SHA256
		}
		for _, v := range sc.Variants {
			if err := sweep.CheckSLOs(c.SLOs, v); err != nil {
				return nil, err
			}
			most := c.MaxMultiple
			if n := compile.Requests(v.Spec); n > 0 {
				most = min(most, compile.MaxRequests/n)
			}
			if v.Work != nil && v.Work.Units() > 0 {
				most = min(most, compile.MaxWork/v.Work.Units()) // and their subrequests
			}
			s := newSearch(c, p, v.Name, sc.Seed, v.Spec.LoadFactor, most)
			s.index = len(cp.searches)
			cp.searches = append(cp.searches, s)
			cp.Variants = append(cp.Variants, v)
		}
	}
	return cp, nil
}

// newSearch starts the searches of one point and variant.
func newSearch(c *Config, p sweep.Point, variant string, seed uint64, lf, most float64) *searchState {
	return &searchState{c: c, point: p, variant: variant, seed: seed, lf: lf, most: most,
		runs: map[runKey]*metrics.Run{}, probes: map[float64]*Probe{}}
}

// RunItems makes the searches idx on the run loop (c.Parallel runs at once) and calls done
// with each answer as it is found, one call at a time. It stops at done's first error.
func (cp *Plan) RunItems(idx []int, done func(i int, res Answer) error) error {
	c := cp.c
	// The runs a search makes are not known in advance: about four probes of every
	// replication and the check's two runs (docs/capacity.md), an estimate (negative).
	est := len(idx) * (4*max(c.Replications, 1) + 2)
	loop := runner.New(runner.Options{Parallel: c.Parallel, EngineCores: c.EngineCores, Stop: c.Stop, Progress: c.Progress, Total: -est})
	errs := make([]error, len(idx))
	// The searches wait on their runs, which take the pool's slots.
	loop.Fork(len(idx), func(k int) {
		s := cp.searches[idx[k]]
		s.loop = loop
		res, err := s.answer()
		if err != nil {
			errs[k] = err
			return
		}
		loop.Deliver(func() error { return done(idx[k], res) })
	})
	if loop.Interrupted() {
		return sweep.ErrInterrupted
	}
	if err := loop.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// RunID names one run of a capacity search: the search (its index in the plan, point
// then variant), the multiple and the replication. A run stopped once its verdict was
// settled and then made whole has the same ID; the later run replaces the earlier.
type RunID struct {
	Search      int     `json:"search"`
	Multiple    float64 `json:"multiple"`
	Replication int     `json:"replication"`
}

// runKey names one simulation of a search: a multiple and a replication.
type runKey struct {
	m float64
	r int
}

// searchState is one point and variant's searches, sharing their runs.
type searchState struct {
	c        *Config
	index    int // in the plan (RunID)
	point    sweep.Point
	variant  string
	seed     uint64
	lf, most float64 // the scenario's own load_factor; the largest multiple allowed
	loop     *runner.Loop

	// replay: the runs are given (read back from a cluster sweep's files), and a run
	// that is not given is an error rather than a simulation.
	replay bool

	mu     sync.Mutex
	runs   map[runKey]*metrics.Run
	probes map[float64]*Probe
	count  int
	// reps is the replications searched so far (c.Replications, more with Precision).
	reps int
	// limit is what the utilization law offers the nodes (offeredOf), found once.
	limit     offeredLimit
	limitOnce sync.Once
}

// run returns the runs of replications reps at multiple m, simulating those not made yet
// on the pool. A run is stopped once its verdict is settled (watcher), unless full: then
// a run stopped so is made again, whole.
func (s *searchState) run(m float64, reps []int, full bool) ([]*metrics.Run, error) {
	out, todo := s.reuse(m, reps, full)
	if s.replay && len(todo) > 0 {
		r := reps[todo[0]]
		return nil, &MissingRunError{Variant: s.variant, Point: s.point, Multiple: m, Seed: s.seed + uint64(r)}
	}
	err := runner.Each(s.loop, len(todo), func(k int) (*metrics.Run, error) {
		r, err := s.loop.Measure(s.build(m, reps[todo[k]], full), s.c.lengths(m)) // long enough for the hottest queue to settle, within the budget
		if err == nil {
			r.Shards = nil // the searches need streams, nodes and the hottest shard; the rest would only take memory
		}
		return r, err
	}, func(k int, r *metrics.Run) error {
		if s.c.Record != nil {
			if err := s.c.Record(RunID{s.index, m, reps[todo[k]]}, r); err != nil {
				return err
			}
		}
		out[todo[k]] = r
		s.mu.Lock()
		s.runs[runKey{m, reps[todo[k]]}] = r
		s.count++
		s.mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// reuse takes the runs of replications reps at multiple m that the search already has
// (made in this search, or before it was interrupted: counted as made now) into out, and
// lists in todo the indexes of reps still to run. full asks for whole runs: a run stopped
// early as a failure is made again.
func (s *searchState) reuse(m float64, reps []int, full bool) (out []*metrics.Run, todo []int) {
	out = make([]*metrics.Run, len(reps))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range reps {
		if x, ok := s.runs[runKey{m, r}]; ok && !(full && x.Decided && !s.c.passes(x)) {
			out[i] = x
		} else if xs := s.c.Made[RunID{s.index, m, r}]; !s.replay && len(xs) > 0 && (!full || len(xs) > 1) {
			// The second run of an ID is the whole one that replaced a run stopped early.
			x := xs[0]
			if full {
				x = xs[1]
			}
			out[i] = x
			s.runs[runKey{m, r}] = x
			s.count++
		} else {
			todo = append(todo, i)
		}
	}
	return out, todo
}

// build makes the model of replication r at multiple m, watched for an early verdict
// unless full asks for the whole run.
func (s *searchState) build(m float64, r int, full bool) func(extra ...scenarios.Override) (*sim.Model, error) {
	opts := s.c.Config
	opts.Options.Variants = []string{s.variant}
	lf := scenarios.Override{Flag: fmt.Sprintf("capacity multiple %v", m), Key: "load_factor", Value: fmt.Sprint(m * s.lf)}
	return func(extra ...scenarios.Override) (*sim.Model, error) {
		sc, err := opts.Load(s.point, &s.seed, r, append([]scenarios.Override{lf}, extra...)...)
		if err != nil {
			return nil, err
		}
		model := s.c.Model(sc.Variants[0])
		if !full && s.limit.steady && !s.c.wholeRuns {
			model.Watch = s.c.watcher(model, m, s.limit)
		}
		return model, nil
	}
}

// probe judges multiple m over replications reps.
func (s *searchState) probe(m float64, reps []int) (*Probe, error) {
	runs, err := s.run(m, reps, false)
	if err != nil {
		return nil, err
	}
	// A run stopped early as a failure failed alone, but its figures, measured for a part
	// of the run, understate the whole run's: where the means over the replications pass
	// even so, the verdict is not settled, and the stopped runs are made again in full.
	// The busiest node's peak is such a figure where every stopped run's busiest window is
	// one it measured whole (one the whole run has: decide.go), so the means are judged
	// with the ceiling too; elsewhere on the SLOs alone.
	means := metrics.Assess(s.c.SLOs, s.c.MaxErrors, runs)
	if s.limit.held && !slices.ContainsFunc(runs, func(r *metrics.Run) bool { return !s.limit.wholePeak(r) }) {
		means = s.c.assess(runs)
	}
	if s.c.pooling() && len(runs) > 1 && slices.ContainsFunc(runs, func(r *metrics.Run) bool { return r.Decided && !s.c.passes(r) }) &&
		means.OK {
		if runs, err = s.run(m, reps, true); err != nil {
			return nil, err
		}
	}
	pr := &Probe{Multiple: m}
	for _, r := range reps {
		pr.Seeds = append(pr.Seeds, s.seed+uint64(r))
	}
	s.c.judgeRuns(pr, runs)
	summarize(pr, runs, s.c.SLOs)
	return pr, nil
}

// judgeRuns sets a probe's verdicts on its runs: the SLOs over the runs together, the
// runs that pass alone, the saturated ones, and the unsettled ones, whose passes are no
// passes (their tails are understated; a failure would be one).
func (c *Config) judgeRuns(pr *Probe, runs []*metrics.Run) {
	pr.Assessment = c.assess(runs)
	lengths := c.lengths(0)
	var unsettled *metrics.Run // the first run that is not settled
	for _, r := range runs {
		alone := c.assess([]*metrics.Run{r})
		ok := alone.OK
		if !ok && pr.Alone.Binding == "" {
			pr.Alone = alone
		}
		if !lengths.Settled(r) {
			unsettled = cmp.Or(unsettled, r)
			if ok {
				pr.Unsettled++
				if pr.Why == "" {
					pr.Why = c.unsettledReason(r)
				}
				ok = false
			}
		}
		if ok {
			pr.Passes++
		}
		if r.Saturated {
			pr.Saturated++
		}
	}
	// The means of runs of which some are unsettled are understated: a pass of theirs is
	// no pass either.
	if unsettled != nil && pr.Assessment.OK && pr.Unsettled == 0 {
		pr.Unsettled, pr.Why = 1, c.unsettledReason(unsettled)
	}
}

// summarize sets a probe's figures over its runs: each SLO's statistic, the error rate
// and failures, the hottest node and shard, what binds, and how long the runs measured
// against how long the hottest queue takes to settle.
func summarize(pr *Probe, runs []*metrics.Run, slos []sweep.SLO) {
	for i := range slos {
		xs := make([]*float64, len(runs))
		for k, r := range runs {
			xs[k] = sloStat(slos[i], r)
		}
		pr.Stats = append(pr.Stats, replicas.EstimatedOpt(xs))
	}
	pr.ErrorRate = replicas.Over(runs, func(r *metrics.Run) float64 { return r.ErrorRate })
	for _, cause := range metrics.Causes {
		pr.Failures[cause] = replicas.Over(runs, func(r *metrics.Run) float64 { return float64(r.Failures[cause]) })
	}
	pr.NodeLoad = replicas.Over(runs, func(r *metrics.Run) float64 { return r.Node.Load })
	pr.HottestNode = replicas.Mode(runs, func(r *metrics.Run) int { return r.Node.Index })
	pr.PeakLoad = replicas.Over(runs, func(r *metrics.Run) float64 { _, p := metrics.BusiestAtPeak(r); return p })
	pr.PeakNode = replicas.Mode(runs, func(r *metrics.Run) int { n, _ := metrics.BusiestAtPeak(r); return n })
	pr.ShardLoad = replicas.Over(runs, func(r *metrics.Run) float64 { return r.Shard.Load })
	pr.HottestShard = replicas.Mode(runs, func(r *metrics.Run) int { return r.Shard.Index })
	pr.Bottleneck, pr.Agree = replicas.ModalBottleneck(runs, slos)
	for i, r := range runs {
		if n := r.Node.Index; n < len(r.Nodes) {
			pr.Settle = max(pr.Settle, r.Nodes[n].Settle)
		}
		m := (r.Elapsed - min(r.Warmup, r.Elapsed)).Seconds()
		if i == 0 || m < pr.Measured {
			pr.Measured = m
		}
	}
}

// allReps is 0..R-1, R the replications searched so far.
func (s *searchState) allReps() []int {
	reps := make([]int, max(s.reps, s.c.Replications))
	for i := range reps {
		reps[i] = i
	}
	return reps
}

// pooled is the probe of m over every replication, made once.
func (s *searchState) pooled(m float64) (*Probe, error) {
	s.mu.Lock()
	pr, ok := s.probes[m]
	s.mu.Unlock()
	if ok {
		return pr, nil
	}
	pr, err := s.probe(m, s.allReps())
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.probes[m] = pr
	s.mu.Unlock()
	return pr, nil
}

// answer runs the three searches and the check: each replication alone, then every
// replication and the means from the replications' answers, then one run at a fresh seed
// at the answer and above it; then it gathers what every run showed.
func (s *searchState) answer() (Answer, error) {
	began := time.Now()
	if err := s.findLimit(); err != nil {
		return Answer{}, err
	}
	res := Answer{Point: s.point, Variant: s.variant, Require: s.c.Require, Failed: math.NaN(), OfferedAt: math.Inf(1), Plan: s.limit.rates}
	if s.limit.ok {
		res.OfferedAt = 1 / s.limit.load
	}
	per, err := s.alone()
	if err != nil {
		return res, err
	}
	b := spreadOf(per, &res)
	if err := s.searchPooled(b, &res); err != nil {
		return res, err
	}
	if err := s.check(&res); err != nil {
		return res, err
	}
	if err := s.gather(&res); err != nil {
		return res, err
	}
	res.Wall = time.Since(began)
	return res, nil
}

// searchAlone is the search of replication r alone.
func (s *searchState) searchAlone(r int) (found, error) {
	c := s.c
	start, next, below := s.limit.start(c.MaxUtilization)
	if c.wholeRuns {
		start, next, below = 0, 0, 0
	}
	return find(c.Tolerance, s.most, start, next, below, func(m float64) (verdict, error) {
		if over, why := s.limit.overOffered(m); over {
			return verdict{binding: Offered, reason: why}, nil
		}
		pr, err := s.probe(m, []int{r})
		if err != nil {
			return verdict{}, err
		}
		v := verdict{ok: pr.Passes == 1, binding: pr.Assessment.Binding, reason: pr.Assessment.Reason, noLoad: belowNoLoad(c.SLOs, pr)}
		if pr.unsettledOnly(RequireAll) {
			v.binding, v.reason, v.noLoad = Unsettled, pr.Why, ""
		}
		return v, nil
	})
}

// alone searches each replication alone, in parallel; with Precision, it adds
// replications one at a time until their answers are precise (precise).
func (s *searchState) alone() ([]found, error) {
	c := s.c
	R := c.Replications
	s.reps = R
	per := make([]found, R)
	errs := make([]error, R)
	s.loop.Fork(R, func(r int) { per[r], errs[r] = s.searchAlone(r) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for c.Precision > 0 && R < max(c.MaxReplications, c.Replications) && !precise(per, c.Precision) {
		f, err := s.searchAlone(R)
		if err != nil {
			return nil, err
		}
		per = append(per, f)
		R++
		s.mu.Lock()
		s.reps = R
		s.mu.Unlock()
	}
	return per, nil
}

// brackets are where the replications' own searches ended: lo the lowest answer, hiMin
// and hiMax the lowest and highest multiple a replication failed at (NaN when one never
// failed).
type brackets struct{ lo, hiMin, hiMax float64 }

// spreadOf records the replications' own answers in res (PerReplication, PerFailed and
// their Spread, whose interval is never narrower than the searches' resolution: replication
// r's answer lies between its last pass and its first failure) and returns their brackets.
func spreadOf(per []found, res *Answer) brackets {
	b := brackets{lo: math.Inf(1), hiMin: math.Inf(1)}
	for _, f := range per {
		res.PerReplication = append(res.PerReplication, f.lo)
		res.PerFailed = append(res.PerFailed, f.hi)
		b.lo = min(b.lo, f.lo)
		b.hiMin, b.hiMax = min(b.hiMin, f.hi), max(b.hiMax, f.hi)
	}
	res.Spread = replicas.Estimated(res.PerReplication)
	if len(per) > 1 {
		res.Spread.Lo = min(res.Spread.Lo, b.lo)
		if !math.IsNaN(b.hiMax) {
			res.Spread.Hi = max(res.Spread.Hi, b.hiMax)
		}
	}
	return b
}

// judgePooled judges a multiple over every replication as req asks.
func (s *searchState) judgePooled(req Require) func(m float64) (verdict, error) {
	return func(m float64) (verdict, error) {
		if over, why := s.limit.overOffered(m); over {
			return verdict{binding: Offered, reason: why}, nil
		}
		pr, err := s.pooled(m)
		if err != nil {
			return verdict{}, err
		}
		v := verdict{ok: pr.OK(req), binding: pr.Assessment.Binding, reason: pr.Assessment.Reason, noLoad: belowNoLoad(s.c.SLOs, pr)}
		if pr.unsettledOnly(req) {
			v.binding, v.reason, v.noLoad = Unsettled, fmt.Sprintf("%d of %d replications unsettled: %s", pr.Unsettled, len(pr.Seeds), pr.Why), ""
		} else if req == RequireAll && !v.ok && pr.Assessment.OK {
			v.binding, v.reason = "a replication", fmt.Sprintf("only %d of %d replications pass alone, though the means do", pr.Passes, len(pr.Seeds))
			if a := pr.Alone; a.Binding != "" {
				// Name what fails in the seed that fails: the ceiling, an SLO.
				v.binding, v.reason = a.Binding, fmt.Sprintf("%s in %d of %d replications (the means pass)", a.Reason, len(pr.Seeds)-pr.Passes, len(pr.Seeds))
			}
		}
		return v, nil
	}
}

// searchPooled runs the searches over every replication (RequireAll, RequireMean) and
// records both answers in res, and the one Require picks as its Multiple. They start
// from the replications' own answers: every replication met the SLOs at or above the
// lowest answer, one failed at the lowest failing multiple (so not all pass there), and
// every one failed at the highest (so the means usually fail there too). The runs of
// those multiples are made already.
func (s *searchState) searchPooled(b brackets, res *Answer) error {
	c := s.c
	startLo, startAll, startHi := 0.0, 0.0, 0.0
	if b.lo > 0 {
		startLo = b.lo
		if !math.IsNaN(b.hiMin) {
			startAll = b.hiMin
		}
		if !math.IsNaN(b.hiMax) {
			startHi = b.hiMax
		}
	}
	all, err := find(c.Tolerance, s.most, startLo, startAll, 0, s.judgePooled(RequireAll))
	if err != nil {
		return err
	}
	mean, err := find(c.Tolerance, s.most, startLo, startHi, 0, s.judgePooled(RequireMean))
	if err != nil {
		return err
	}
	res.MeanAnswer, res.AllAnswer = mean.lo, all.lo
	chosen := mean
	if c.Require == RequireAll {
		chosen = all
	}
	res.Multiple, res.Failed, res.Binding, res.Reason, res.Evaluations = chosen.lo, chosen.hi, chosen.binding, chosen.reason, chosen.evals
	if chosen.noLoad != "" {
		res.NoLoad, res.Reason = true, chosen.noLoad
	}
	res.Unsettled = chosen.binding == Unsettled
	return nil
}

// check sets the probes at the answer and above it, and the check: one run at a seed
// none of the searches used, at each. Above the utilization law's limit nothing ran:
// there is no probe to show, and no check to make.
func (s *searchState) check(res *Answer) error {
	R := len(res.PerReplication)
	aboveRan := !math.IsNaN(res.Failed) && res.Binding != Offered
	var err error
	if res.Multiple > 0 {
		res.At, _ = s.pooled(res.Multiple)
	}
	if aboveRan {
		res.Above, _ = s.pooled(res.Failed)
	}
	if res.Multiple > 0 {
		if res.Check, err = s.probe(res.Multiple, []int{R}); err != nil {
			return err
		}
	}
	if aboveRan {
		if res.CheckAbove, err = s.probe(res.Failed, []int{R}); err != nil {
			return err
		}
	}
	return nil
}

// gather records in res every multiple that every replication ran as a probe, whichever
// search ran it, and every run made as a sample, with the runs' count and simulated time.
func (s *searchState) gather(res *Answer) error {
	c := s.c
	R := len(res.PerReplication)
	have := map[float64]int{}
	for k := range s.runs {
		if k.r < R {
			have[k.m]++
		}
	}
	for m, n := range have {
		if n == R {
			if _, err := s.pooled(m); err != nil {
				return err
			}
		}
	}
	for _, pr := range s.probes {
		res.Probes = append(res.Probes, *pr)
	}
	sort.Slice(res.Probes, func(i, j int) bool { return res.Probes[i].Multiple < res.Probes[j].Multiple })
	res.Runs = s.count
	for _, r := range s.runs {
		res.SimSeconds += r.Elapsed.Seconds()
	}
	for k, r := range s.runs {
		sm := Sample{Multiple: k.m, Seed: s.seed + uint64(k.r), OK: c.passes(r), Stats: sloStats(c.SLOs, r)}
		res.Samples = append(res.Samples, sm)
	}
	sort.Slice(res.Samples, func(i, j int) bool {
		a, b := res.Samples[i], res.Samples[j]
		return a.Multiple < b.Multiple || a.Multiple == b.Multiple && a.Seed < b.Seed
	})
	return nil
}

// sloStats is each SLO's statistic in run r (sloStat).
func sloStats(slos []sweep.SLO, r *metrics.Run) []*float64 {
	var xs []*float64
	for _, slo := range slos {
		xs = append(xs, sloStat(slo, r))
	}
	return xs
}

// sloStat is an SLO's statistic in run r: nil when its stream completed nothing.
func sloStat(slo sweep.SLO, r *metrics.Run) *float64 {
	if st := r.Stream(slo.Stream); st != nil {
		return slo.Stat.Value(st)
	}
	return nil
}

// verdict is one judgement of a multiple. noLoad, when it failed, says why no lower
// multiple can pass (belowNoLoad); "" when one may.
type verdict struct {
	ok                      bool
	binding, reason, noLoad string
}

// A failing latency SLO is taken to be below the latency at no load when its probe's
// nodes were nearly idle, the hottest at most noLoadNode of its cores in every
// replication, and the statistic passed its bound by noLoadMargin or more. At a load rho
// of 5% queueing adds about rho/(1-rho), 5%, to an M/M/1 server's latency quantiles (an
// M/M/c's less), so removing the rest of the load cannot take off the 10% margin: no
// multiple meets the SLO, and halving on would only spend runs (ten halvings from 1 to
// the smallest multiple tried).
const (
	noLoadNode   = 0.05
	noLoadMargin = 1.1
)

// belowNoLoad says, for a failing probe, why none of the SLOs it failed can be met at a
// lower multiple (noLoadNode, noLoadMargin), with the latency measured; "" when the probe
// passed, or some failure may go away with less load (an error rate, a saturated run, a
// statistic near its bound, a busy node).
func belowNoLoad(slos []sweep.SLO, pr *Probe) string {
	a := &pr.Assessment
	if a.OK || !a.ErrorsOK || pr.Saturated > 0 || pr.NodeLoad.N == 0 || pr.NodeLoad.Max > noLoadNode {
		return ""
	}
	var why []string
	for i, v := range a.Verdicts {
		if v.OK {
			continue
		}
		slo := slos[i]
		x := pr.Stats[i]
		if slo.Stat == metrics.ErrorRate || !x.Defined() || x.Mean < noLoadMargin*slo.Bound {
			return ""
		}
		why = append(why, fmt.Sprintf("%s %s %s", slo.Stream, slo.Stat, statValue(slo.Stat, x.Mean)))
	}
	if len(why) == 0 || a.Binding == metrics.Unfinished {
		return ""
	}
	return fmt.Sprintf("the SLO is below the latency with no load (the network's round trips and the service time): at multiple %s, the hottest node at %s of its cores, %s; no multiple meets it",
		strconv.FormatFloat(pr.Multiple, 'g', 4, 64), units.Percent(pr.NodeLoad.Max, 1), strings.Join(why, ", "))
}

// found is what a search found: the largest passing multiple (0: none down to
// minMultiple), the smallest failing one above it (NaN: none up to the cap), and what
// failed there.
type found struct {
	lo, hi          float64
	binding, reason string
	noLoad          string // why no multiple passes, when a failure showed it (verdict.noLoad)
	evals           int
}

// find searches for the largest multiple that judge passes, up to most, to relative
// precision tol. It starts at start (1 when 0) and, if that passes, tries next (twice
// start when 0) then doubles; if it fails, it tries below (half of start when 0) and
// halves from there. Then it bisects.
func find(tol, most, start, next, below float64, judge func(m float64) (verdict, error)) (found, error) {
	fd := &finder{found: found{hi: math.NaN()}, judge: judge}
	if start <= 0 {
		start = 1
	}
	start = min(start, most)
	ok, err := fd.try(start)
	switch {
	case err != nil:
		return fd.found, err
	case fd.noLoad != "":
		return fd.found, nil // no multiple can pass: nothing to halve
	case ok:
		err = fd.up(start, next, most)
	default:
		err = fd.down(start, below)
	}
	if err != nil || !fd.bracketed {
		return fd.found, err
	}
	for (fd.hi-fd.lo)/fd.lo > tol {
		if _, err := fd.try(midpoint(fd.lo, fd.hi)); err != nil {
			return fd.found, err
		}
	}
	return fd.found, nil
}

// midpoint is the multiple between lo and hi that a bisection tries: near their middle, on
// the coarsest power-of-two grid that has a point strictly between them, so that the
// answers stay short to print (1.3515625 rather than 1.3509521484375, where a search that
// starts from the utilization law's grid would otherwise go on halving an odd bracket).
func midpoint(lo, hi float64) float64 {
	for g := math.Exp2(math.Floor(math.Log2((hi - lo) / 2))); g > 0 && g >= (hi-lo)/1e6; g /= 2 {
		if m := math.Round((lo+hi)/2/g) * g; m > lo && m < hi {
			return m
		}
	}
	return (lo + hi) / 2
}

// finder is one search in progress: what it found so far, and whether a pass and a
// failure bracket the answer, so that bisecting can narrow it.
type finder struct {
	found
	judge     func(m float64) (verdict, error)
	bracketed bool
}

// try judges m and records it: the largest pass, the smallest failure above it (with
// what failed there), and why nothing passes when the first failures show it.
func (fd *finder) try(m float64) (bool, error) {
	v, err := fd.judge(m)
	fd.evals++
	if err != nil {
		return false, err
	}
	if v.ok && m > fd.lo {
		fd.lo = m
	}
	if !v.ok && (math.IsNaN(fd.hi) || m < fd.hi) {
		fd.hi, fd.binding, fd.reason = m, v.binding, v.reason
		if fd.lo == 0 {
			fd.noLoad = v.noLoad
		}
	}
	return v.ok, nil
}

// up tries next (twice start when not above it) and then doubles from the largest pass
// until a multiple fails, or the cap passes.
func (fd *finder) up(start, next, most float64) error {
	m := next
	if m <= start {
		m = 2 * start
	}
	for fd.lo < most {
		ok, err := fd.try(min(m, most))
		if err != nil || !ok {
			fd.bracketed = err == nil
			return err
		}
		m = 2 * fd.lo
	}
	return nil // meets its SLOs at the cap
}

// down tries below (half of start when not under it), then halves until a multiple
// passes, or none can: below minMultiple, or below the latency with no load (it fails at
// every multiple).
func (fd *finder) down(start, below float64) error {
	m := below
	if !(m > 0 && m < start) {
		m = start / 2
	}
	for ; m >= minMultiple; m /= 2 {
		ok, err := fd.try(m)
		if err != nil || ok {
			fd.bracketed = err == nil
			return err
		}
		if fd.noLoad != "" {
			return nil
		}
	}
	return nil // fails even at the smallest multiple
}

// MissingRunError says that a capacity search replayed from a cluster's files needs a run
// the files do not hold: they were not written by this search.
type MissingRunError struct {
	Variant  string
	Point    sweep.Point
	Multiple float64
	Seed     uint64
}

func (e *MissingRunError) Error() string {
	return fmt.Sprintf("the search of variant %q needs a run at multiple %s with seed %d that its file does not hold",
		e.Variant, strconv.FormatFloat(e.Multiple, 'g', -1, 64), e.Seed)
}
