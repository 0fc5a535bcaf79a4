package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// CapacityConfig says what capacity to search for.
type CapacityConfig struct {
	Config
	SLOs      []SLO
	MaxErrors float64 // largest acceptable fraction of rejected requests
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
	// Binding names what failed first just above Multiple: an SLO as written, or "errors".
	Binding string
	// Failed is the multiple the search saw fail (NaN when nothing failed up to MaxMultiple).
	Failed      float64
	Evaluations int
	// At is what the passing multiple measured: the SLO statistics in ms and the error rate.
	At []float64
	// AtErrors is the error rate at Multiple.
	AtErrors float64
}

// minMultiple is the smallest load multiple tried.
const minMultiple = 1.0 / 1024

// RunCapacity finds, for every point and variant, the largest multiple of all the
// scenario's rates (load_factor) at which every SLO holds (the mean over replications of
// the stream's statistic is below its bound) and the error rate stays at or under
// MaxErrors. It brackets the answer by doubling or halving from 1, then bisects until the
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
	points := Points(c.Axes)
	type search struct {
		point   Point
		variant string
		seed    uint64
	}
	var searches []search
	for _, p := range points {
		sc, err := c.load(p, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", describe(c.Axes, p), err)
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
			searches = append(searches, search{point: p, variant: v.Name, seed: sc.Seed})
		}
	}
	sem := make(chan struct{}, c.Parallel)
	out := make([]Capacity, len(searches))
	errs := make([]error, len(searches))
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	done := 0
	for i, s := range searches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			eval := func(m float64) (bool, string, []float64, float64, error) {
				samples := make([]Sample, c.Replications)
				var runErr error
				var mu sync.Mutex
				var rwg sync.WaitGroup
				for r := 0; r < c.Replications; r++ {
					rwg.Add(1)
					go func() {
						defer rwg.Done()
						sem <- struct{}{}
						defer func() { <-sem }()
						opts := c.Config
						opts.Options.Variants = []string{s.variant}
						sc, err := opts.load(s.point, &s.seed, r, fmt.Sprintf("load_factor=%v", m))
						if err != nil {
							mu.Lock()
							runErr = err
							mu.Unlock()
							return
						}
						samples[r] = Measure(sim.Run(c.model(sc.Variants[0])))
					}()
				}
				rwg.Wait()
				if runErr == nil && c.stopped() {
					runErr = ErrInterrupted
				}
				if runErr != nil {
					return false, "", nil, 0, runErr
				}
				ok, binding, at, errRate := judge(c, samples)
				if c.Progress != nil {
					progressMu.Lock()
					done++
					c.Progress(done, 0)
					progressMu.Unlock()
				}
				return ok, binding, at, errRate, nil
			}
			out[i], errs[i] = bisect(c, s.point, s.variant, eval)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// judge decides whether replicated samples meet the SLOs; binding names the worst
// violation (the largest ratio of statistic to bound, or errors).
func judge(c CapacityConfig, samples []Sample) (ok bool, binding string, at []float64, errRate float64) {
	ok = true
	worst := 0.0
	for _, s := range c.SLOs {
		xs := make([]float64, len(samples))
		for i, smp := range samples {
			for _, st := range smp.Streams {
				if st.Name == s.Stream {
					xs[i] = statistic(st, s.Quantile)
				}
			}
		}
		v := Estimated(xs).Mean
		at = append(at, v)
		if v >= s.Millis {
			ok = false
			if r := v / s.Millis; r > worst {
				worst, binding = r, s.Text
			}
		}
	}
	for _, smp := range samples {
		errRate += smp.ErrorRate / float64(len(samples))
	}
	if errRate > c.MaxErrors {
		if ok || binding == "" {
			binding = "errors"
		}
		ok = false
	}
	return ok, binding, at, errRate
}

func statistic(st StreamSample, q float64) float64 {
	switch q {
	case 0:
		return st.Mean
	case 0.5:
		return st.P50
	case 0.9:
		return st.P90
	case 0.95:
		return st.P95
	case 0.99:
		return st.P99
	}
	return st.P999
}

type evalFunc func(m float64) (ok bool, binding string, at []float64, errRate float64, err error)

// bisect brackets and narrows the largest passing multiple.
func bisect(c CapacityConfig, p Point, variant string, eval evalFunc) (Capacity, error) {
	res := Capacity{Point: p, Variant: variant, Failed: math.NaN()}
	try := func(m float64) (bool, error) {
		ok, binding, at, errRate, err := eval(m)
		res.Evaluations++
		if err != nil {
			return false, err
		}
		if ok {
			if m > res.Multiple {
				res.Multiple, res.At, res.AtErrors = m, at, errRate
			}
		} else if math.IsNaN(res.Failed) || m < res.Failed {
			res.Failed, res.Binding = m, binding
		}
		return ok, nil
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
