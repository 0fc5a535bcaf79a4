package sweep

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/runs/runner"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// Config says what to sweep.
type Config struct {
	Scenario     string            // path or built-in name
	Options      scenarios.Options // the user's --set and --variant
	Axes         []Axis
	Replications int // runs per point and variant, seeds seed, seed+1, ...
	Parallel     int // runs at once
	EngineCores  int // cores each run may use (runner.Options.EngineCores; 0: share the machine)
	// Progress, when set, is called after each run with the runs done and the total.
	Progress func(done, total int)
	// Stop, when set, interrupts the sweep: runs in progress stop and no new one starts,
	// and Run returns ErrInterrupted.
	Stop func() bool
	// MaxRuns bounds points x variants x replications (0: DefaultMaxRuns); a larger sweep
	// is refused before anything is loaded or run.
	MaxRuns int
	// SLOs, when any, are judged at every row of a sweep (with MaxErrors, the largest
	// acceptable error rate over every stream and cause): over the replications together,
	// as capacity judges them, and in each replication alone, to find the rows whose
	// replications disagree. Capacity takes its own (CapacityConfig.SLOs).
	SLOs      []SLO
	MaxErrors float64
	// MaxUtilization is the ceiling on the busiest node's load at peak, a fraction of its
	// cores, judged with the SLOs (metrics.AssessWithin; docs/capacity.md, "Headroom"): a
	// row or multiple whose busiest node passes it does not meet them. 0, or 1 or more:
	// none.
	MaxUtilization float64
	// RunBudget, when above 0, has a sweep choose each run's length as capacity does
	// (docs/sweeps.md): long enough for the hottest queue to settle, up to this much
	// simulated time; a row with a run the budget could not settle says so.
	RunBudget time.Duration
	// Made, when set, holds runs made before by the same sweep (an interrupted one's, to
	// resume it): a run it holds is taken, not simulated. Record, when set, is told each
	// run as it is made, one call at a time; its error stops the sweep.
	Made   map[RunID][]*metrics.Run
	Record func(id RunID, r *metrics.Run) error
	// pass is the placement pass the runs are of: 0 the sweep's own, 1 the placement
	// check's under random placement (RunPlacement).
	pass int
}

// RunID names one run of a sweep: its placement pass (0 the sweep, 1 the placement
// check), point, variant and replication.
type RunID struct {
	Pass        int `json:"pass"`
	Point       int `json:"point"`
	Variant     int `json:"variant"`
	Replication int `json:"replication"`
}

// DefaultMaxRuns is the most runs a sweep or capacity search makes unless told otherwise:
// the points, variants and replications are held in memory while it runs.
const DefaultMaxRuns = 10_000

// CountPoints returns the number of points the axes span, or math.Inf(1) past 2^53 (it
// does not build them).
func CountPoints(axes []Axis) float64 {
	n := 1.0
	for _, a := range axes {
		n *= float64(len(a.Values))
	}
	return n
}

// checkRuns refuses a sweep of more than MaxRuns runs; variants is 1 until the scenario
// has been loaded.
func (c *Config) CheckRuns(variants int) error {
	most := c.MaxRuns
	if most <= 0 {
		most = DefaultMaxRuns
	}
	if n := CountPoints(c.Axes) * float64(c.Replications) * float64(variants); n > float64(most) {
		return &LimitError{fmt.Sprintf("%.0f points x %d variant(s) x %d replication(s) = %.0f runs; at most %d are allowed (fewer values, variants or replications, or raise --max-runs)",
			CountPoints(c.Axes), variants, c.Replications, n, most)}
	}
	return nil
}

// LimitError says that a sweep or capacity search is larger than its bound.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// ErrInterrupted is returned by Run and capacity.Run when Config.Stop ended them: the run
// loop's (runner.ErrInterrupted).
var ErrInterrupted = runner.ErrInterrupted

// model builds a variant's model wired to the sweep's Stop.
func (c *Config) Model(v *scenarios.Variant) *sim.Model {
	m := v.Model()
	m.Stop = c.Stop
	if v.Spec != nil && v.Spec.Streamed() && !sim.GrowsShards(m) {
		// As `run` does above scenario.StreamShardCells, keep a digest of the shard series
		// rather than the series: metrics.Of reads it, and it is all a sweep reads.
		m.Sink = &metrics.DigestSink{Windows: m.Windows(), Lines: metrics.NoLines}
	}
	return m
}

// Row is one point and variant of a sweep. Every figure comes from metrics.Of of each
// replication's result.
type Row struct {
	Point   Point
	Variant string
	Seeds   []uint64
	Streams []StreamRow
	// The hottest shard and the hottest node over the run: the one hottest in most
	// replications (the lowest index on ties), and the mean over replications of the
	// hottest one's load (whichever it was), a fraction 0..1 of its node's cores.
	HottestShard, HottestNode int
	HottestLoad               replicas.Estimate
	HottestNodeLoad           replicas.Estimate
	Skew                      replicas.Estimate // hottest over mean shard load (1 = even)
	// ErrorRate is failed over offered requests of every stream, over every cause (0..1);
	// Failures are the failed requests per cause, indexed by metrics.Cause.
	ErrorRate replicas.Estimate
	Failures  [len(metrics.Causes)]replicas.Estimate
	// Bottleneck is what binds the row (metrics.BottleneckOf): the most common resource and
	// node over the replications (the lowest replication's on ties), with its figures from
	// the first replication that agrees; Agree counts the replications that agree.
	Bottleneck metrics.Bottleneck
	Agree      int
	// Saturated counts the replications whose backlog diverged; Unsettled those whose
	// run did not measure long enough for its hottest queue to settle (with a RunBudget
	// only).
	Saturated int
	Unsettled int
	// With SLOs: Assessment judges them over the replications together (the statistic's
	// mean under its bound, as capacity does) and Passes counts the replications that meet
	// every SLO alone. Judged is false without SLOs.
	Judged     bool
	Assessment metrics.Assessment
	Passes     int
	// SLOPasses counts the replications that meet every SLO and the error bound alone,
	// the ceiling aside: replications that disagree on those make the row's latencies a
	// mean of runs that describe none of them, whatever the ceiling says.
	SLOPasses int
}

// Split reports whether the row's replications disagree: some meet every SLO and some do
// not or, without SLOs, some saturated and some did not. A mean over such replications
// describes none of them.
func (r *Row) Split() bool {
	n := len(r.Seeds)
	if r.Judged {
		return r.Passes > 0 && r.Passes < n || r.SLOPasses > 0 && r.SLOPasses < n
	}
	return r.Saturated > 0 && r.Saturated < n
}

// StreamRow is one stream's estimates at a point. Latencies are in ms and undefined (NaN)
// when a replication completed nothing; the error rate is over every cause (0..1); Failures
// are counts per cause, indexed by metrics.Cause.
type StreamRow struct {
	Name                    string
	Mean, P50, P99, P999    replicas.Estimate
	Offered, Completed      replicas.Estimate
	ErrorRate               replicas.Estimate
	Failures                [len(metrics.Causes)]replicas.Estimate
	Subrequests, Partitions replicas.Estimate
}

// load reads the scenario at a point and replication: the point's values are set on top of
// the user's overrides, and replication r runs with the scenario's seed plus r.
func (c *Config) Load(p Point, seed *uint64, r int, extra ...scenarios.Override) (*scenarios.Scenario, error) {
	opts := c.Options
	opts.Overrides = slices.Clone(c.Options.Overrides)
	for i, a := range c.Axes {
		// Named by the key alone, so that the loader's notes read the same at every point.
		// A bare word is a string, as with --set: --vary cluster.placement=round_robin,random.
		opts.Overrides = append(opts.Overrides, scenarios.Override{Flag: "--vary " + a.Key, Key: a.Key, Value: scenarios.SetValue(p.Values[i])})
	}
	opts.Overrides = append(opts.Overrides, extra...)
	if seed != nil {
		s := *seed + uint64(r)
		opts.Overrides = append(opts.Overrides, scenarios.Override{Flag: fmt.Sprintf("replication %d (seed %d)", r, s), Key: "seed", Value: fmt.Sprint(s)})
	}
	return scenarios.Load(c.Scenario, opts)
}

// Notes returns what the loader says of how the command line changes the variants (a
// --vary key replacing a variant's own value), once each, from the first point.
func (c *Config) Notes() []string {
	if sc := c.first(); sc != nil {
		return sc.Notes
	}
	return nil
}

// first loads the scenario at the first value of every axis; nil when an axis has no
// value or the scenario does not load there.
func (c *Config) first() *scenarios.Scenario {
	first := Point{Values: make([]string, len(c.Axes))}
	for i, a := range c.Axes {
		if len(a.Values) == 0 {
			return nil
		}
		first.Values[i] = a.Values[0]
	}
	sc, err := c.Load(first, nil, 0)
	if err != nil {
		return nil
	}
	return sc
}

// replaced returns, per variant, the varied keys whose values replace the variant's own
// (the same at every point: they depend on which keys a variant sets), from the first
// point; nil when it does not load.
func (c *Config) replaced() map[string][]string {
	sc := c.first()
	if sc == nil {
		return nil
	}
	out := map[string][]string{}
	for _, v := range sc.Variants {
		for _, a := range c.Axes {
			if slices.Contains(v.Replaced, a.Key) {
				out[v.Name] = append(out[v.Name], a.Key)
			}
		}
	}
	return out
}

// checkVaried refuses a sweep in which a varied key leaves a variant's resolved model the same
// at two points: their rows would differ only by their labels (docs/sweeps.md, `shardsim
// sweep`). specs[pi][vi] is variant vi at point pi, replication 0.
func checkVaried(axes []Axis, points []Point, specs [][]*scenarios.Variant) error {
	for ai, a := range axes {
		groups := map[string][]int{} // points that differ only in axis ai
		for pi, p := range points {
			other := slices.Clone(p.Values)
			other[ai] = ""
			k := strings.Join(other, "\x00")
			groups[k] = append(groups[k], pi)
		}
		for _, g := range groups {
			for x := 0; x < len(g); x++ {
				for y := x + 1; y < len(g); y++ {
					for vi, v := range specs[g[x]] {
						if vi < len(specs[g[y]]) && reflect.DeepEqual(v.Spec.Effective(), specs[g[y]][vi].Spec.Effective()) {
							return fmt.Errorf("--vary %s: variant %q runs the same model at %s=%s and %s=%s, so its rows would differ only in their labels; vary a key this variant uses, or leave it out with --variant",
								a.Key, v.Name, a.Key, points[g[x]].Values[ai], a.Key, points[g[y]].Values[ai])
						}
					}
				}
			}
		}
	}
	return nil
}

// Job is one work item of a sweep: a point, a replication and a variant (indexes), the
// variant as replication 0 loaded it, and its name.
type Job struct {
	Point, Rep, Variant int
	V                   *scenarios.Variant
	Name                string
}

// Plan is a sweep expanded into its work items in the canonical order (point, then
// replication, then variant), with every point loaded and validated. The order and the
// items depend on the command line and the scenario only, never on who runs them.
type Plan struct {
	c      *Config
	Points []Point
	Jobs   []Job
	Seeds  []uint64               // each point's seed: replication r runs with Seeds[point]+r
	Firsts [][]*scenarios.Variant // each point's variants, replication 0
	// Name and SHA256 are the scenario's name and the hash of its text.
	Name, SHA256 string
}

// Config is the sweep's configuration.
func (pl *Plan) Config() *Config { return pl.c }

// NewPlan loads every point of the sweep (replication 0) and lists its work items. A
// replication after the first is loaded when it runs, so that memory holds one scenario
// per point, not one per run.
func NewPlan(c *Config) (*Plan, error) {
	if c.Replications < 1 || c.Parallel < 1 {
		return nil, fmt.Errorf("replications and parallel must be at least 1")
	}
	if err := c.CheckRuns(1); err != nil {
		return nil, err
	}
	pl := &Plan{c: c, Points: Points(c.Axes)}
	pl.Seeds = make([]uint64, len(pl.Points))
	pl.Firsts = make([][]*scenarios.Variant, len(pl.Points))
	for pi, p := range pl.Points {
		if c.Stop != nil && c.Stop() {
			return nil, ErrInterrupted
		}
		sc, err := c.Load(p, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", Describe(c.Axes, p), err)
		}
		if pi == 0 {
			if err := c.CheckRuns(len(sc.Variants)); err != nil {
				return nil, err
			}
			pl.Name, pl.SHA256 = sc.Name, sc.SHA256
		}
		for _, v := range sc.Variants {
			if err := CheckSLOs(c.SLOs, v); err != nil {
				return nil, err
			}
		}
		pl.Seeds[pi] = sc.Seed
		pl.Firsts[pi] = sc.Variants
		for r := 0; r < c.Replications; r++ {
			for vi, v := range sc.Variants {
				pl.Jobs = append(pl.Jobs, Job{Point: pi, Rep: r, Variant: vi, V: v, Name: v.Name})
			}
		}
	}
	if err := checkVaried(c.Axes, pl.Points, pl.Firsts); err != nil {
		return nil, err
	}
	return pl, nil
}

// RunItems simulates the work items idx on the run loop (c.Parallel at once) and calls done
// with each one's figures as it finishes, one call at a time. It stops at done's first
// error.
func (pl *Plan) RunItems(idx []int, done func(i int, r *metrics.Run) error) error {
	c := pl.c
	var lengths *runner.Lengths
	if c.RunBudget > 0 {
		lengths = c.lengths() // as long as the hottest queue needs to settle, within the budget
	}
	loop := runner.New(runner.Options{Parallel: c.Parallel, EngineCores: c.EngineCores, Stop: c.Stop, Progress: c.Progress, Total: len(idx)})
	return runner.Each(loop, len(idx), func(k int) (*metrics.Run, error) {
		return loop.Measure(func(extra ...scenarios.Override) (*sim.Model, error) { return pl.model(pl.Jobs[idx[k]], extra...) }, lengths)
	}, func(k int, r *metrics.Run) error { return done(idx[k], r) })
}

// model builds work item j's model: replication 0's variant as the plan loaded it, or
// the replication loaded at its seed (with extra overrides, a run's length).
func (pl *Plan) model(j Job, extra ...scenarios.Override) (*sim.Model, error) {
	if j.Rep == 0 && len(extra) == 0 {
		return pl.c.Model(j.V), nil
	}
	sc, err := pl.c.Load(pl.Points[j.Point], &pl.Seeds[j.Point], j.Rep, extra...)
	if err != nil {
		// Replication 0 of the same point loaded; only the seed or the length differs.
		return nil, fmt.Errorf("sweep: replication %d of a valid point failed to load: %w", j.Rep, err)
	}
	return pl.c.Model(sc.Variants[j.Variant]), nil
}

// rows aggregates the items' figures (samples[i] is job i's) into one row per point and
// variant, in point order then variant order.
func (pl *Plan) rows(samples []*metrics.Run) []Row {
	var rows []Row
	for pi, p := range pl.Points {
		for vi := range pl.Firsts[pi] {
			var ss []*metrics.Run
			row := Row{Point: p}
			for i, j := range pl.Jobs {
				if j.Point == pi && j.Variant == vi {
					ss = append(ss, samples[i])
					row.Variant = j.Name
					row.Seeds = append(row.Seeds, pl.Seeds[pi]+uint64(j.Rep))
				}
			}
			row = RowOf(row, ss, pl.c.SLOs, pl.c.MaxErrors, pl.c.MaxUtilization)
			if pl.c.RunBudget > 0 {
				for _, s := range ss {
					if !pl.c.lengths().Settled(s) {
						row.Unsettled++
					}
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// Run runs every point, variant and replication and returns one row per point and
// variant, in point order then variant order. Every point is loaded and validated before
// anything runs, so a bad value fails at once. The rows do not depend on Parallel.
func Run(c Config) ([]Row, error) {
	pl, err := NewPlan(&c)
	if err != nil {
		return nil, err
	}
	samples := make([]*metrics.Run, len(pl.Jobs))
	var todo []int
	for i, j := range pl.Jobs {
		if xs := c.Made[pl.id(j)]; len(xs) > 0 {
			samples[i] = xs[0] // made before the sweep was interrupted
		} else {
			todo = append(todo, i)
		}
	}
	if made := len(pl.Jobs) - len(todo); made > 0 && c.Progress != nil {
		progress := c.Progress // the runs made before count as done
		c.Progress = func(done, total int) { progress(done+made, total+made) }
	}
	if err := pl.RunItems(todo, func(i int, r *metrics.Run) error {
		if c.Record != nil {
			if err := c.Record(pl.id(pl.Jobs[i]), r); err != nil {
				return err
			}
		}
		samples[i] = r
		return nil
	}); err != nil {
		return nil, err
	}
	return pl.rows(samples), nil
}

// id is job j's RunID.
func (pl *Plan) id(j Job) RunID {
	return RunID{Pass: pl.c.pass, Point: j.Point, Variant: j.Variant, Replication: j.Rep}
}

// RowOf is a row made from its replications' figures (ss, in seed order; row carries
// the point, variant and seeds): their estimates and, with slos, their verdicts, the
// busiest node's load at peak judged against ceiling with them (Config.MaxUtilization).
func RowOf(row Row, ss []*metrics.Run, slos []SLO, maxErrors, ceiling float64) Row {
	row = aggregate(row, ss)
	judge(&row, ss, slos, maxErrors, ceiling)
	return row
}

// aggregate fills in a row's estimates from its replications' figures.
func aggregate(row Row, ss []*metrics.Run) Row {
	col := func(f func(*metrics.Run) float64) replicas.Estimate { return replicas.Over(ss, f) }
	row.HottestShard = replicas.Mode(ss, func(s *metrics.Run) int { return s.Shard.Index })
	row.HottestNode = replicas.Mode(ss, func(s *metrics.Run) int { return s.Node.Index })
	row.HottestLoad = col(func(s *metrics.Run) float64 { return s.Shard.Load })
	row.HottestNodeLoad = col(func(s *metrics.Run) float64 { return s.Node.Load })
	row.Skew = col(func(s *metrics.Run) float64 { return s.Shard.MaxOverMean })
	row.ErrorRate = col(func(s *metrics.Run) float64 { return s.ErrorRate })
	row.Bottleneck, row.Agree = replicas.ModalBottleneck(ss, nil)
	for _, s := range ss {
		if s.Saturated {
			row.Saturated++
		}
	}
	for _, c := range metrics.Causes {
		row.Failures[c] = col(func(s *metrics.Run) float64 { return float64(s.Failures[c]) })
	}
	for i := range ss[0].Streams {
		st := func(f func(*metrics.Stream) float64) replicas.Estimate {
			return col(func(s *metrics.Run) float64 { return f(&s.Streams[i]) })
		}
		lat := func(f func(*metrics.Latency) *float64) replicas.Estimate {
			xs := make([]*float64, len(ss))
			for k, s := range ss {
				xs[k] = f(&s.Streams[i].Latency)
			}
			return replicas.EstimatedOpt(xs)
		}
		sr := StreamRow{
			Name:        ss[0].Streams[i].Name,
			Mean:        lat(func(l *metrics.Latency) *float64 { return l.Mean }),
			P50:         lat(func(l *metrics.Latency) *float64 { return l.P50 }),
			P99:         lat(func(l *metrics.Latency) *float64 { return l.P99 }),
			P999:        lat(func(l *metrics.Latency) *float64 { return l.P999 }),
			Offered:     st(func(x *metrics.Stream) float64 { return float64(x.Offered) }),
			Completed:   st(func(x *metrics.Stream) float64 { return float64(x.Completed) }),
			ErrorRate:   st(func(x *metrics.Stream) float64 { return x.ErrorRate }),
			Subrequests: st(func(x *metrics.Stream) float64 { return x.Fanout.Mean }),
			Partitions:  st(func(x *metrics.Stream) float64 { return x.Fanout.Partitions }),
		}
		for _, c := range metrics.Causes {
			sr.Failures[c] = st(func(x *metrics.Stream) float64 { return float64(x.Failures[c]) })
		}
		row.Streams = append(row.Streams, sr)
	}
	return row
}

func Describe(axes []Axis, p Point) string {
	if len(axes) == 0 {
		return "(base)"
	}
	s := ""
	for i, a := range axes {
		if i > 0 {
			s += ", "
		}
		s += a.Key + "=" + p.Values[i]
	}
	return s
}

// judge judges a row's SLOs, when there are any: over its replications together (as
// capacity does) and in each alone, which finds the rows whose replications disagree.
func judge(row *Row, ss []*metrics.Run, slos []SLO, maxErrors, ceiling float64) {
	if len(slos) == 0 {
		return
	}
	row.Bottleneck, row.Agree = replicas.ModalBottleneck(ss, slos)
	row.Judged = true
	row.Assessment = metrics.AssessWithin(slos, maxErrors, ceiling, ss)
	row.Passes, row.SLOPasses = 0, 0
	for _, s := range ss {
		if metrics.AssessWithin(slos, maxErrors, ceiling, []*metrics.Run{s}).OK {
			row.Passes++
		}
		if metrics.Assess(slos, maxErrors, []*metrics.Run{s}).OK {
			row.SLOPasses++
		}
	}
}

// checkSLOs refuses an SLO on a stream the variant does not have.
func CheckSLOs(slos []SLO, v *scenarios.Variant) error {
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

// lengths is how long a sweep with a RunBudget makes each run (runner.Lengths): every
// run, passing or not, is lengthened until its hottest queue settles, within the
// budget, as a capacity search's are.
func (c *Config) lengths() *runner.Lengths { return &runner.Lengths{Budget: c.RunBudget} }
