package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/shardsim/shardsim/internal/pool"
	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
)

// CapacityConfig says what capacity to search for.
type CapacityConfig struct {
	Config
	SLOs []SLO
	// MaxErrors is the largest acceptable fraction (0..1) of failed requests, over every
	// stream and every cause of failure (rejected, throttled, timed out, limited).
	MaxErrors float64
	// Tolerance is the bisection's relative precision (0.01: the answer is within 1%).
	Tolerance float64
	// MaxMultiple caps the search; a design that meets its SLOs there is reported at it.
	MaxMultiple float64
}

// Capacity is the answer for one point and variant.
type Capacity struct {
	Point    Point
	Variant  string
	Multiple float64 // the largest load_factor found to meet every SLO (0: not even the smallest tried)
	// Binding names what failed first just above Multiple: an SLO as written, "errors"
	// (the error rate over every stream and cause passed MaxErrors), or "saturated" (the
	// run's backlog diverged); Reason says why in words.
	Binding, Reason string
	// Failed is the multiple the search saw fail (NaN when nothing failed up to MaxMultiple).
	Failed      float64
	Evaluations int
	// At is what the passing multiple measured: each SLO's statistic (ms, or a fraction
	// for an error-rate SLO), averaged over the replications; empty when nothing passed.
	At []float64
	// AtErrors is the error rate at Multiple over every stream and cause, 0..1.
	AtErrors float64
}

// minMultiple is the smallest load multiple tried.
const minMultiple = 1.0 / 1024

// RunCapacity finds, for every point and variant, the largest multiple of all the
// scenario's rates (load_factor) at which every SLO holds and the error rate stays at or
// under MaxErrors, as metrics.Assess judges them: the mean over replications of the
// stream's statistic is below its bound, the stream completed requests in every
// replication, and no replication saturated. It brackets the answer by doubling or halving from 1, then bisects until the
// bracket is within Tolerance. Results do not depend on Parallel.
func RunCapacity(c CapacityConfig) ([]Capacity, error) {
	if c.Tolerance <= 0 {
		c.Tolerance = 0.01
	}
	if c.MaxMultiple <= 0 {
		c.MaxMultiple = 64
	}
	if len(c.SLOs) == 0 {
		return nil, fmt.Errorf("capacity needs at least one --slo")
	}
	if c.Replications < 1 || c.Parallel < 1 {
		return nil, fmt.Errorf("replications and parallel must be at least 1")
	}
	if err := c.checkRuns(1); err != nil {
		return nil, err
	}
	points := Points(c.Axes)
	type search struct {
		point   Point
		variant string
		seed    uint64
		// lf is the scenario's own load_factor (the file's or --set's): multiples are of
		// the scenario as given. most is the largest multiple within the work bound.
		lf, most float64
	}
	var searches []search
	for pi, p := range points {
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
		}
		for _, v := range sc.Variants {
			for _, s := range c.SLOs {
				if !slices.ContainsFunc(v.Streams, func(si scenarios.StreamInfo) bool { return si.Name == s.Stream }) {
					var names []string
					for _, si := range v.Streams {
						names = append(names, si.Name)
					}
					return nil, fmt.Errorf("--slo %q: variant %q has no stream %q (streams: %s)", s.Text, v.Name, s.Stream, strings.Join(names, ", "))
				}
			}
			most := math.Inf(1)
			if n := v.Spec.Requests(); n > 0 {
				most = spec.MaxRequests / n
			}
			searches = append(searches, search{point: p, variant: v.Name, seed: sc.Seed, lf: v.Spec.LoadFactor, most: most})
		}
	}
	p := pool.New(c.Parallel, c.Stop)
	out := make([]Capacity, len(searches))
	errs := make([]error, len(searches))
	var progressMu sync.Mutex
	done := 0
	// The searches wait on their evaluations, whose replications take the pool's slots.
	p.Fork(len(searches), func(i int) {
		s := searches[i]
		eval := func(m float64) (metrics.Assessment, error) {
			runs := make([]*metrics.Run, c.Replications)
			errs := make([]error, c.Replications)
			p.Each(c.Replications, func(r int) {
				opts := c.Config
				opts.Options.Variants = []string{s.variant}
				sc, err := opts.load(s.point, &s.seed, r, scenarios.Override{Flag: fmt.Sprintf("capacity multiple %v", m), Key: "load_factor", Value: fmt.Sprint(m * s.lf)})
				if err != nil {
					errs[r] = err
					return
				}
				runs[r] = metrics.Of(sim.Run(c.model(sc.Variants[0])))
			})
			if err := errors.Join(errs...); err != nil {
				return metrics.Assessment{}, err
			}
			if p.Stopped() {
				return metrics.Assessment{}, ErrInterrupted
			}
			a := metrics.Assess(c.SLOs, c.MaxErrors, runs)
			if c.Progress != nil {
				progressMu.Lock()
				done++
				c.Progress(done, 0)
				progressMu.Unlock()
			}
			return a, nil
		}
		cs := c
		cs.MaxMultiple = min(c.MaxMultiple, s.most)
		out[i], errs[i] = bisect(cs, s.point, s.variant, eval)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

type evalFunc func(m float64) (metrics.Assessment, error)

// bisect brackets and narrows the largest passing multiple.
func bisect(c CapacityConfig, p Point, variant string, eval evalFunc) (Capacity, error) {
	res := Capacity{Point: p, Variant: variant, Failed: math.NaN()}
	try := func(m float64) (bool, error) {
		a, err := eval(m)
		res.Evaluations++
		if err != nil {
			return false, err
		}
		if a.OK {
			if m > res.Multiple {
				res.Multiple, res.AtErrors = m, a.ErrorRate
				res.At = res.At[:0]
				for _, v := range a.Verdicts {
					res.At = append(res.At, *v.Value) // every verdict holds, so each has a value
				}
			}
		} else if math.IsNaN(res.Failed) || m < res.Failed {
			res.Failed, res.Binding, res.Reason = m, a.Binding, a.Reason
		}
		return a.OK, nil
	}
	lo, hi := 0.0, 0.0
	ok, err := try(1)
	if err != nil {
		return res, err
	}
	if ok {
		lo = 1
		for m := 2.0; ; m *= 2 {
			if m > c.MaxMultiple {
				return res, nil // meets its SLOs at the cap
			}
			if ok, err = try(m); err != nil {
				return res, err
			}
			if !ok {
				hi = m
				break
			}
			lo = m
		}
	} else {
		hi = 1
		for m := 0.5; ; m /= 2 {
			if m < minMultiple {
				return res, nil // fails even at the smallest multiple
			}
			if ok, err = try(m); err != nil {
				return res, err
			}
			if ok {
				lo = m
				break
			}
			hi = m
		}
	}
	for (hi-lo)/lo > c.Tolerance {
		mid := (lo + hi) / 2
		ok, err := try(mid)
		if err != nil {
			return res, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return res, nil
}
