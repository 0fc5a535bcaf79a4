package sweep

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

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
	// Progress, when set, is called after each run with the runs done and the total.
	Progress func(done, total int)
	// Stop, when set, interrupts the sweep: runs in progress stop and no new one starts,
	// and Run returns ErrInterrupted.
	Stop func() bool
}

// ErrInterrupted is returned by Run and RunCapacity when Config.Stop ended them.
var ErrInterrupted = errors.New("interrupted")

func (c *Config) stopped() bool { return c.Stop != nil && c.Stop() }

// model builds a variant's model wired to the sweep's Stop.
func (c *Config) model(v *scenarios.Variant) *sim.Model {
	m := v.Model()
	m.Stop = c.Stop
	return m
}

// Sample is what one run of one variant contributes to a sweep row.
type Sample struct {
	Streams     []StreamSample
	HottestLoad float64 // the hottest shard's load over the run
	Skew        float64 // hottest over mean shard load (1 = even)
	ErrorRate   float64 // rejected over offered, all streams
}

// StreamSample is one stream's figures in one run (latencies in ms).
type StreamSample struct {
	Name                      string
	Mean, P50, P90, P95       float64
	P99, P999                 float64
	ErrorRate                 float64
	Subrequests, Partitions   float64 // mean per request
	Offered, Completed, Error int64
}

// Measure extracts a run's sample.
func Measure(r *sim.Result) Sample {
	var s Sample
	var offered, rejected int64
	for i := range r.Streams {
		st := &r.Streams[i]
		ss := StreamSample{Name: st.Name, Mean: st.MeanMillis(), P50: st.QuantileMillis(0.5), P90: st.QuantileMillis(0.9),
			P95: st.QuantileMillis(0.95), P99: st.QuantileMillis(0.99),
			P999: st.QuantileMillis(0.999), Offered: st.Offered, Completed: st.Completed, Error: st.Rejected}
		if st.Offered > 0 {
			ss.ErrorRate = float64(st.Rejected) / float64(st.Offered)
			ss.Subrequests = float64(st.Subrequests) / float64(st.Offered)
			ss.Partitions = float64(st.Partitions) / float64(st.Offered)
		}
		offered += st.Offered
		rejected += st.Rejected
		s.Streams = append(s.Streams, ss)
	}
	if offered > 0 {
		s.ErrorRate = float64(rejected) / float64(offered)
	}
	sum := 0.0
	for sh := range r.Shards {
		u := r.Utilization(sh)
		sum += u
		s.HottestLoad = math.Max(s.HottestLoad, u)
	}
	if sum > 0 {
		s.Skew = s.HottestLoad / (sum / float64(len(r.Shards)))
	}
	return s
}

// Estimate is a mean over replications with the half-width of its 95% confidence interval
// (Student's t with R-1 degrees of freedom); the half-width is NaN for one replication.
type Estimate struct {
	Mean float64
	Half float64
}

// Estimated summarizes xs.
func Estimated(xs []float64) Estimate {
	e := Estimate{Mean: stat.Mean(xs, nil), Half: math.NaN()}
	if n := len(xs); n > 1 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
		e.Half = t * stat.StdDev(xs, nil) / math.Sqrt(float64(n))
	}
	return e
}

// Row is one point and variant of a sweep.
type Row struct {
	Point       Point
	Variant     string
	Seeds       []uint64
	Streams     []StreamRow
	HottestLoad Estimate
	Skew        Estimate
	ErrorRate   Estimate
}

// StreamRow is one stream's estimates at a point.
type StreamRow struct {
	Name                    string
	Mean, P50, P99, P999    Estimate
	ErrorRate               Estimate
	Subrequests, Partitions Estimate
}

// load reads the scenario at a point and replication: the point's values are set on top of
// the user's overrides, and replication r runs with the scenario's seed plus r.
func (c *Config) load(p Point, seed *uint64, r int, extra ...string) (*scenarios.Scenario, error) {
	opts := c.Options
	opts.Sets = append(append(append([]string(nil), c.Options.Sets...), p.Sets(c.Axes)...), extra...)
	if seed != nil {
		opts.Sets = append(opts.Sets, fmt.Sprintf("seed=%d", *seed+uint64(r)))
	}
	return scenarios.Load(c.Scenario, opts)
}

// Run runs every point, variant and replication and returns one row per point and
// variant, in point order then variant order. Every point is loaded and validated before
// anything runs, so a bad value fails at once. The rows do not depend on Parallel.
func Run(c Config) ([]Row, error) {
	if c.Replications < 1 || c.Parallel < 1 {
		return nil, fmt.Errorf("replications and parallel must be at least 1")
	}
	points := Points(c.Axes)
	type job struct {
		point, rep, variant int
		v                   *scenarios.Variant
	}
	var jobs []job
	seeds := make([]uint64, len(points))
	nv := 0
	for pi, p := range points {
		sc, err := c.load(p, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", describe(c.Axes, p), err)
		}
		seeds[pi] = sc.Seed
		nv = len(sc.Variants)
		for r := 0; r < c.Replications; r++ {
			if r > 0 {
				if sc, err = c.load(p, &seeds[pi], r); err != nil {
					return nil, err
				}
			}
			for vi, v := range sc.Variants {
				jobs = append(jobs, job{point: pi, rep: r, variant: vi, v: v})
			}
		}
	}
	samples := make([]Sample, len(jobs))
	names := make([]string, len(jobs))
	runJobs(len(jobs), c.Parallel, c.Progress, func(i int) {
		if c.stopped() {
			return
		}
		samples[i] = Measure(sim.Run(c.model(jobs[i].v)))
		names[i] = jobs[i].v.Name
	})
	if c.stopped() {
		return nil, ErrInterrupted
	}
	var rows []Row
	for pi, p := range points {
		for vi := 0; vi < nv; vi++ {
			var ss []Sample
			row := Row{Point: p}
			for i, j := range jobs {
				if j.point == pi && j.variant == vi {
					ss = append(ss, samples[i])
					row.Variant = names[i]
					row.Seeds = append(row.Seeds, seeds[pi]+uint64(j.rep))
				}
			}
			rows = append(rows, aggregate(row, ss))
		}
	}
	return rows, nil
}

// runJobs calls run(i) for i in [0, n) on parallel goroutines, reporting progress.
func runJobs(n, parallel int, progress func(done, total int), run func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < min(parallel, max(n, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run(i)
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

func aggregate(row Row, ss []Sample) Row {
	col := func(f func(Sample) float64) Estimate {
		xs := make([]float64, len(ss))
		for i, s := range ss {
			xs[i] = f(s)
		}
		return Estimated(xs)
	}
	row.HottestLoad = col(func(s Sample) float64 { return s.HottestLoad })
	row.Skew = col(func(s Sample) float64 { return s.Skew })
	row.ErrorRate = col(func(s Sample) float64 { return s.ErrorRate })
	for i := range ss[0].Streams {
		st := func(f func(StreamSample) float64) Estimate {
			return col(func(s Sample) float64 { return f(s.Streams[i]) })
		}
		row.Streams = append(row.Streams, StreamRow{
			Name:        ss[0].Streams[i].Name,
			Mean:        st(func(x StreamSample) float64 { return x.Mean }),
			P50:         st(func(x StreamSample) float64 { return x.P50 }),
			P99:         st(func(x StreamSample) float64 { return x.P99 }),
			P999:        st(func(x StreamSample) float64 { return x.P999 }),
			ErrorRate:   st(func(x StreamSample) float64 { return x.ErrorRate }),
			Subrequests: st(func(x StreamSample) float64 { return x.Subrequests }),
			Partitions:  st(func(x StreamSample) float64 { return x.Partitions }),
		})
	}
	return row
}

func describe(axes []Axis, p Point) string {
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
