package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shardsim/shardsim/build"
	"github.com/shardsim/shardsim/internal/pool"
	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
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

// CapacityConfig says what capacity to search for.
type CapacityConfig struct {
	Config
	SLOs []SLO
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
	// settle the hottest queue (0: DefaultBudget); a multiple the budget cannot settle is
	// judged Unsettled.
	Budget time.Duration
	// Precision, when above 0, adds replications one at a time (up to MaxReplications)
	// until the 95% interval of the replications' own answers is within Precision of
	// their mean on either side, or every replication's answer lies in one bracket of the
	// search (the seeds agree on every multiple's pass or fail).
	Precision       float64
	MaxReplications int
	// Relaxations is how many relaxation times of the hottest queue each run measures
	// after its warmup (at least settleRuns; by default defaultRelaxations).
	Relaxations float64
	// lengthenAll lengthens failing runs too (a sweep's, whose rows show every figure).
	lengthenAll bool
}

// Probe is what one multiple measured over a set of replications.
type Probe struct {
	Multiple float64
	Seeds    []uint64
	// Assessment judges the SLOs over the replications together (each statistic's mean
	// under its bound); Passes counts the replications that meet every SLO alone.
	Assessment metrics.Assessment
	Passes     int
	// Stats[i] is SLO i's statistic over the replications (ms, or a fraction for an error
	// rate); undefined when a replication has none.
	Stats     []Estimate
	ErrorRate Estimate
	Failures  [len(metrics.Causes)]Estimate // failed requests per cause, over every stream
	// NodeLoad is the hottest node's utilization over the run (0..1 of its cores), and
	// HottestNode the node hottest in most replications.
	NodeLoad    Estimate
	HottestNode int
	// ShardLoad is the hottest shard's utilization over the run (0..1 of its node's
	// cores), and HottestShard the shard hottest in most replications.
	ShardLoad    Estimate
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

// Capacity is the answer for one point and variant.
type Capacity struct {
	Point   Point
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
	Spread    Estimate
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

// RunCapacity finds, for every point and variant, the largest multiple of all the
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
func RunCapacity(c CapacityConfig) ([]Capacity, error) {
	cp, err := newCapacityPlan(&c)
	if err != nil {
		return nil, err
	}
	out := make([]Capacity, len(cp.searches))
	all := make([]int, len(cp.searches))
	for i := range all {
		all[i] = i
	}
	err = cp.run(all, func(i int, res Capacity) error { out[i] = res; return nil })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// capacityPlan is a capacity search expanded into its work items, one per point and
// variant in point order then variant order, with every point loaded and validated.
type capacityPlan struct {
	c        *CapacityConfig
	searches []*searchState
	// name and sha256 are the scenario's name and the hash of its text; effective[i] is
	// search i's variant as it runs (spec.Resolved.Effective, JSON), which identifies it.
	name, sha256 string
	effective    [][]byte
}

// defaults fills in the tolerance and the cap, and checks the rest.
func (c *CapacityConfig) defaults() error {
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
	return c.checkRuns(1)
}

func newCapacityPlan(c *CapacityConfig) (*capacityPlan, error) {
	if err := c.defaults(); err != nil {
		return nil, err
	}
	cp := &capacityPlan{c: c}
	for pi, p := range Points(c.Axes) {
		if c.Stop != nil && c.Stop() {
			return nil, ErrInterrupted
		}
		sc, err := c.load(p, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", describe(c.Axes, p), err)
		}
		if pi == 0 {
			if err := c.checkRuns(len(sc.Variants)); err != nil {
				return nil, err
			}
			cp.name, cp.sha256 = sc.Name, sc.SHA256
		}
		for _, v := range sc.Variants {
			if err := checkSLOs(c.SLOs, v); err != nil {
				return nil, err
			}
			most := c.MaxMultiple
			if n := v.Spec.Requests(); n > 0 {
				most = min(most, spec.MaxRequests/n)
			}
			if v.Work != nil && v.Work.Units() > 0 {
				most = min(most, build.MaxWork/v.Work.Units()) // and their subrequests
			}
			cp.searches = append(cp.searches, newSearch(c, p, v.Name, sc.Seed, v.Spec.LoadFactor, most))
			cp.effective = append(cp.effective, effectiveJSON(v))
		}
	}
	return cp, nil
}

// newSearch starts the searches of one point and variant.
func newSearch(c *CapacityConfig, p Point, variant string, seed uint64, lf, most float64) *searchState {
	return &searchState{c: c, point: p, variant: variant, seed: seed, lf: lf, most: most,
		runs: map[runKey]*metrics.Run{}, probes: map[float64]*Probe{}}
}

// run makes the searches idx on a pool of c.Parallel and calls done with each answer as
// it is found, one call at a time. It stops at done's first error.
func (cp *capacityPlan) run(idx []int, done func(i int, res Capacity) error) error {
	c := cp.c
	var mu sync.Mutex
	var failed error
	stop := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failed != nil || c.Stop != nil && c.Stop()
	}
	p := pool.New(c.Parallel, stop)
	finished := 0
	progress := func() {
		if c.Progress != nil {
			mu.Lock()
			finished++
			c.Progress(finished, 0)
			mu.Unlock()
		}
	}
	errs := make([]error, len(idx))
	// The searches wait on their runs, which take the pool's slots.
	p.Fork(len(idx), func(k int) {
		s := cp.searches[idx[k]]
		s.pool, s.progress = p, progress
		res, err := s.answer()
		if err != nil {
			errs[k] = err
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if failed == nil {
			failed = done(idx[k], res)
		}
	})
	if c.Stop != nil && c.Stop() {
		return ErrInterrupted
	}
	if failed != nil {
		return failed
	}
	return errors.Join(errs...)
}

// runKey names one simulation of a search: a multiple and a replication.
type runKey struct {
	m float64
	r int
}

// searchState is one point and variant's searches, sharing their runs.
type searchState struct {
	c        *CapacityConfig
	point    Point
	variant  string
	seed     uint64
	lf, most float64 // the scenario's own load_factor; the largest multiple allowed
	pool     *pool.Pool
	progress func()

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
// on the pool.
func (s *searchState) run(m float64, reps []int) ([]*metrics.Run, error) {
	out := make([]*metrics.Run, len(reps))
	var todo []int
	s.mu.Lock()
	for i, r := range reps {
		if x, ok := s.runs[runKey{m, r}]; ok {
			out[i] = x
		} else {
			todo = append(todo, i)
		}
	}
	s.mu.Unlock()
	if s.replay && len(todo) > 0 {
		r := reps[todo[0]]
		return nil, &MissingRunError{Variant: s.variant, Point: s.point, Multiple: m, Seed: s.seed + uint64(r)}
	}
	errs := make([]error, len(todo))
	s.pool.Each(len(todo), func(k int) {
		i := todo[k]
		opts := s.c.Config
		opts.Options.Variants = []string{s.variant}
		lf := scenarios.Override{Flag: fmt.Sprintf("capacity multiple %v", m), Key: "load_factor", Value: fmt.Sprint(m * s.lf)}
		simulate := func(extra ...scenarios.Override) (*metrics.Run, error) {
			sc, err := opts.load(s.point, &s.seed, reps[i], append([]scenarios.Override{lf}, extra...)...)
			if err != nil {
				return nil, err
			}
			r := metrics.Of(sim.Run(s.c.model(sc.Variants[0])))
			r.Shards = nil // the searches need streams, nodes and the hottest shard; the rest would only take memory
			return r, nil
		}
		r, err := simulate()
		if err == nil {
			// Long enough for the hottest queue to settle, within the budget (planner.go).
			r, err = s.c.lengthen(r, func(d, w float64) (*metrics.Run, error) { return simulate(lengthOverrides(m, d, w)...) })
		}
		if err != nil {
			errs[k] = err
			return
		}
		out[i] = r
		s.mu.Lock()
		s.runs[runKey{m, reps[i]}] = r
		s.count++
		s.mu.Unlock()
		s.progress()
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if s.pool.Stopped() {
		return nil, ErrInterrupted
	}
	return out, nil
}

// probe judges multiple m over replications reps.
func (s *searchState) probe(m float64, reps []int) (*Probe, error) {
	runs, err := s.run(m, reps)
	if err != nil {
		return nil, err
	}
	pr := &Probe{Multiple: m}
	for _, r := range reps {
		pr.Seeds = append(pr.Seeds, s.seed+uint64(r))
	}
	c := s.c
	pr.Assessment = metrics.Assess(c.SLOs, c.MaxErrors, runs)
	unsettledAny := false
	defer func() {
		// The means of runs of which some are unsettled are understated: a pass of
		// theirs is no pass either.
		if unsettledAny && pr.Assessment.OK && pr.Unsettled == 0 {
			pr.Unsettled = 1
			for _, r := range runs {
				if !c.settled(r) {
					pr.Why = c.unsettledReason(r)
					break
				}
			}
		}
	}()
	for _, r := range runs {
		ok := c.passes(r)
		if !c.settled(r) {
			unsettledAny = true
			if ok {
				// Its tail is understated: its pass is no pass (a failure would be one).
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
	for _, slo := range c.SLOs {
		xs := make([]*float64, len(runs))
		for i, r := range runs {
			if st := r.Stream(slo.Stream); st != nil {
				xs[i] = slo.Stat.Value(st)
			}
		}
		pr.Stats = append(pr.Stats, estimatedOpt(xs))
	}
	col := func(f func(*metrics.Run) float64) Estimate {
		xs := make([]float64, len(runs))
		for i, r := range runs {
			xs[i] = f(r)
		}
		return Estimated(xs)
	}
	pr.ErrorRate = col(func(r *metrics.Run) float64 { return r.ErrorRate })
	for _, cause := range metrics.Causes {
		pr.Failures[cause] = col(func(r *metrics.Run) float64 { return float64(r.Failures[cause]) })
	}
	pr.NodeLoad = col(func(r *metrics.Run) float64 { return r.Node.Load })
	pr.HottestNode = mode(runs, func(r *metrics.Run) int { return r.Node.Index })
	pr.ShardLoad = col(func(r *metrics.Run) float64 { return r.Shard.Load })
	pr.HottestShard = mode(runs, func(r *metrics.Run) int { return r.Shard.Index })
	pr.Bottleneck, pr.Agree = modalBottleneck(runs, c.SLOs)
	for i, r := range runs {
		if n := r.Node.Index; n < len(r.Nodes) {
			pr.Settle = max(pr.Settle, r.Nodes[n].Settle)
		}
		m := (r.Elapsed - min(r.Warmup, r.Elapsed)).Seconds()
		if i == 0 || m < pr.Measured {
			pr.Measured = m
		}
	}
	return pr, nil
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

// answer runs the three searches and the check.
func (s *searchState) answer() (Capacity, error) {
	c := s.c
	began := time.Now()
	if err := s.findLimit(); err != nil {
		return Capacity{}, err
	}
	R := c.Replications
	s.reps = R
	res := Capacity{Point: s.point, Variant: s.variant, Require: c.Require, Failed: math.NaN(), OfferedAt: math.Inf(1)}
	if s.limit.ok {
		res.OfferedAt = 1 / s.limit.load
	}
	res.Plan = s.limit.rates
	// Each replication alone, in parallel; with Precision, more one at a time.
	alone := func(r int) (found, error) {
		return find(c.Tolerance, s.most, 0, 0, func(m float64) (verdict, error) {
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
	per := make([]found, R)
	errs := make([]error, R)
	s.pool.Fork(R, func(r int) { per[r], errs[r] = alone(r) })
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	for c.Precision > 0 && R < max(c.MaxReplications, c.Replications) && !precise(per, c.Precision) {
		f, err := alone(R)
		if err != nil {
			return res, err
		}
		per = append(per, f)
		R++
		s.mu.Lock()
		s.reps = R
		s.mu.Unlock()
	}
	// lo: the lowest answer; hiMin and hiMax: the lowest and highest multiple a
	// replication failed at (NaN when one never failed).
	lo, hiMin, hiMax := math.Inf(1), math.Inf(1), 0.0
	for _, f := range per {
		res.PerReplication = append(res.PerReplication, f.lo)
		res.PerFailed = append(res.PerFailed, f.hi)
		lo = min(lo, f.lo)
		hiMin, hiMax = min(hiMin, f.hi), max(hiMax, f.hi)
	}
	// The interval is never narrower than the searches' resolution: replication r's
	// answer lies between its last pass and its first failure.
	res.Spread = Estimated(res.PerReplication)
	if R > 1 {
		res.Spread.Lo = min(res.Spread.Lo, lo)
		if !math.IsNaN(hiMax) {
			res.Spread.Hi = max(res.Spread.Hi, hiMax)
		}
	}
	judge := func(req Require) func(m float64) (verdict, error) {
		return func(m float64) (verdict, error) {
			if over, why := s.limit.overOffered(m); over {
				return verdict{binding: Offered, reason: why}, nil
			}
			pr, err := s.pooled(m)
			if err != nil {
				return verdict{}, err
			}
			v := verdict{ok: pr.OK(req), binding: pr.Assessment.Binding, reason: pr.Assessment.Reason, noLoad: belowNoLoad(c.SLOs, pr)}
			if pr.unsettledOnly(req) {
				v.binding, v.reason, v.noLoad = Unsettled, fmt.Sprintf("%d of %d replications unsettled: %s", pr.Unsettled, len(pr.Seeds), pr.Why), ""
			} else if req == RequireAll && !v.ok && pr.Assessment.OK {
				v.binding, v.reason = "a replication", fmt.Sprintf("%d of %d replications meet every SLO (the means do)", pr.Passes, len(pr.Seeds))
			}
			return v, nil
		}
	}
	// The pooled searches start from the replications' own answers: every replication
	// met the SLOs at or above the lowest answer, one failed at the lowest failing
	// multiple (so not all pass there), and every one failed at the highest (so the means
	// usually fail there too). The runs of those multiples are made already.
	startLo, startAll, startHi := 0.0, 0.0, 0.0
	if lo > 0 {
		startLo = lo
		if !math.IsNaN(hiMin) {
			startAll = hiMin
		}
		if !math.IsNaN(hiMax) {
			startHi = hiMax
		}
	}
	all, err := find(c.Tolerance, s.most, startLo, startAll, judge(RequireAll))
	if err != nil {
		return res, err
	}
	mean, err := find(c.Tolerance, s.most, startLo, startHi, judge(RequireMean))
	if err != nil {
		return res, err
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
	// Above the utilization law's limit nothing ran: there is no probe to show, and no
	// check to make.
	aboveRan := !math.IsNaN(res.Failed) && chosen.binding != Offered
	if res.Multiple > 0 {
		res.At, _ = s.pooled(res.Multiple)
	}
	if aboveRan {
		res.Above, _ = s.pooled(res.Failed)
	}
	// The check: one run at a seed none of the searches used.
	if res.Multiple > 0 {
		if res.Check, err = s.probe(res.Multiple, []int{R}); err != nil {
			return res, err
		}
	}
	if aboveRan {
		if res.CheckAbove, err = s.probe(res.Failed, []int{R}); err != nil {
			return res, err
		}
	}
	// Every multiple that every replication ran is a probe, whichever search ran it.
	have := map[float64]int{}
	for k := range s.runs {
		if k.r < R {
			have[k.m]++
		}
	}
	for m, n := range have {
		if n == R {
			if _, err := s.pooled(m); err != nil {
				return res, err
			}
		}
	}
	for _, pr := range s.probes {
		res.Probes = append(res.Probes, *pr)
	}
	sort.Slice(res.Probes, func(i, j int) bool { return res.Probes[i].Multiple < res.Probes[j].Multiple })
	res.Runs, res.Wall = s.count, time.Since(began)
	for _, r := range s.runs {
		res.SimSeconds += r.Elapsed.Seconds()
	}
	for k, r := range s.runs {
		sm := Sample{Multiple: k.m, Seed: s.seed + uint64(k.r), OK: metrics.Assess(c.SLOs, c.MaxErrors, []*metrics.Run{r}).OK}
		for _, slo := range c.SLOs {
			var x *float64
			if st := r.Stream(slo.Stream); st != nil {
				x = slo.Stat.Value(st)
			}
			sm.Stats = append(sm.Stats, x)
		}
		res.Samples = append(res.Samples, sm)
	}
	sort.Slice(res.Samples, func(i, j int) bool {
		a, b := res.Samples[i], res.Samples[j]
		return a.Multiple < b.Multiple || a.Multiple == b.Multiple && a.Seed < b.Seed
	})
	return res, nil
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
func belowNoLoad(slos []SLO, pr *Probe) string {
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
// start when 0) then doubles; if it fails, it halves. Then it bisects.
func find(tol, most, start, next float64, judge func(m float64) (verdict, error)) (found, error) {
	f := found{hi: math.NaN()}
	try := func(m float64) (bool, error) {
		v, err := judge(m)
		f.evals++
		if err != nil {
			return false, err
		}
		if v.ok && m > f.lo {
			f.lo = m
		}
		if !v.ok && (math.IsNaN(f.hi) || m < f.hi) {
			f.hi, f.binding, f.reason = m, v.binding, v.reason
			if f.lo == 0 {
				f.noLoad = v.noLoad
			}
		}
		return v.ok, nil
	}
	if start <= 0 {
		start = 1
	}
	start = min(start, most)
	ok, err := try(start)
	if err != nil {
		return f, err
	}
	if f.noLoad != "" {
		return f, nil // no multiple can pass: nothing to halve
	}
	if ok {
		m := next
		if m <= start {
			m = 2 * start
		}
		for {
			if f.lo >= most {
				return f, nil // meets its SLOs at the cap
			}
			if ok, err = try(min(m, most)); err != nil {
				return f, err
			}
			if !ok {
				break
			}
			m = 2 * f.lo
		}
	} else {
		for m := start / 2; ; m /= 2 {
			if m < minMultiple {
				return f, nil // fails even at the smallest multiple
			}
			if ok, err = try(m); err != nil {
				return f, err
			}
			if ok {
				break
			}
			if f.noLoad != "" {
				return f, nil // below the latency with no load: fails at every multiple
			}
		}
	}
	for (f.hi-f.lo)/f.lo > tol {
		if _, err := try((f.lo + f.hi) / 2); err != nil {
			return f, err
		}
	}
	return f, nil
}

// checkSLOs refuses an SLO on a stream the variant does not have.
func checkSLOs(slos []SLO, v *scenarios.Variant) error {
	for _, s := range slos {
		if !slices.ContainsFunc(v.Streams, func(si scenarios.StreamInfo) bool { return si.Name == s.Stream }) {
			var names []string
			for _, si := range v.Streams {
				names = append(names, si.Name)
			}
			return fmt.Errorf("--slo %q: variant %q has no stream %q (streams: %s)", s.Text, v.Name, s.Stream, strings.Join(names, ", "))
		}
	}
	return nil
}
