// Package replicas summarizes one figure over a sweep's or capacity search's replications
// (the same run at seeds seed, seed+1, ...): its mean with a 95% interval that stays in the
// figure's range, median and range (Estimate); the hottest shard or node and the
// bottleneck most replications name; and how tables, CSV and JSON write them. It derives
// no figure of a run: every value it summarizes comes from metrics.
package replicas

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/shardsim/shardsim/figures/metrics"
)

// Estimate summarizes one figure over replications: the mean with a 95% confidence
// interval, and the median, smallest and largest value. Every field is NaN for an
// undefined figure (a latency of a stream that completed nothing in some replication).
//
// Half is the half-width of Student's t interval (R-1 degrees of freedom), kept for the
// *_ci95 columns that scripts read; NaN with one replication. Lo and Hi bound the interval
// that the tables and charts show, which never leaves the range a figure can take:
//   - every value positive (latencies, loads): Student's t on the logarithms, mapped back;
//     the interval is for the geometric mean and is asymmetric, wide on the high side
//     when the replications disagree by orders of magnitude;
//   - every value at least 0 and some 0 (counts, error rates): Student's t cut at 0;
//   - otherwise Student's t.
//
// With one replication Lo and Hi are NaN.
type Estimate struct {
	Mean, Half       float64
	Lo, Hi           float64
	Median, Min, Max float64
	N                int
}

func undefined() Estimate {
	nan := math.NaN()
	return Estimate{Mean: nan, Half: nan, Lo: nan, Hi: nan, Median: nan, Min: nan, Max: nan}
}

// Estimated summarizes xs (at least one value).
func Estimated(xs []float64) Estimate {
	n := len(xs)
	if n == 0 {
		return undefined()
	}
	e := Estimate{Mean: stat.Mean(xs, nil), Half: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), N: n,
		Median: metrics.Median(xs), Min: slices.Min(xs), Max: slices.Max(xs)}
	if n == 1 {
		return e
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	e.Half = t * stat.StdDev(xs, nil) / math.Sqrt(float64(n))
	switch {
	case e.Min > 0:
		logs := make([]float64, n)
		for i, x := range xs {
			logs[i] = math.Log(x)
		}
		m, h := stat.Mean(logs, nil), t*stat.StdDev(logs, nil)/math.Sqrt(float64(n))
		e.Lo, e.Hi = math.Exp(m-h), math.Exp(m+h)
	case e.Min == 0:
		e.Lo, e.Hi = math.Max(0, e.Mean-e.Half), e.Mean+e.Half
	default:
		e.Lo, e.Hi = e.Mean-e.Half, e.Mean+e.Half
	}
	return e
}

// EstimatedOpt summarizes optional values: the estimate is undefined when any replication
// has none; averaging over the others would hide that.
func EstimatedOpt(xs []*float64) Estimate {
	vals := make([]float64, len(xs))
	for i, x := range xs {
		if x == nil {
			return undefined()
		}
		vals[i] = *x
	}
	return Estimated(vals)
}

// Over summarizes f over the runs of a row or probe (Estimated).
func Over(ss []*metrics.Run, f func(*metrics.Run) float64) Estimate {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	return Estimated(xs)
}

// Defined reports whether the estimate has a value.
func (e Estimate) Defined() bool { return !math.IsNaN(e.Mean) }

// mode is the most common f over the runs (the lowest on ties).
func Mode(ss []*metrics.Run, f func(*metrics.Run) int) int {
	count := map[int]int{}
	best := -1
	for _, s := range ss {
		k := f(s)
		count[k]++
		if best < 0 || count[k] > count[best] || count[k] == count[best] && k < best {
			best = k
		}
	}
	return best
}

// ModalBottleneck is the most common bottleneck over the runs, the first run's of those
// on ties, and how many runs agree with it. slos, when given, are judged on each run: a
// failed one lets fan-out bind (metrics.BottleneckOf).
func ModalBottleneck(ss []*metrics.Run, slos []metrics.SLO) (metrics.Bottleneck, int) {
	// Runs agree on a node's cpu or queue when it is the same node, on fan-out when it is
	// the same stream.
	type key struct {
		res    metrics.Resource
		node   int
		stream string
	}
	keyOf := func(b metrics.Bottleneck) key {
		if b.Resource == metrics.CPU || b.Resource == metrics.Queue {
			return key{res: b.Resource, node: b.Node}
		}
		return key{res: b.Resource, stream: b.Stream}
	}
	var bs []metrics.Bottleneck
	count := map[key]int{}
	for _, s := range ss {
		b := metrics.BottleneckOf(s, latencyFailed(slos, s))
		bs = append(bs, b)
		count[keyOf(b)]++
	}
	var best metrics.Bottleneck
	agree := 0
	for _, b := range bs {
		if n := count[keyOf(b)]; n > agree {
			best, agree = b, n
		}
	}
	return best, agree
}

// latencyFailed reports whether a latency objective of slos fails on run r alone.
func latencyFailed(slos []metrics.SLO, r *metrics.Run) bool {
	for _, slo := range slos {
		if slo.Stat != metrics.ErrorRate && !metrics.Judge(slo, []*metrics.Run{r}).OK {
			return true
		}
	}
	return false
}
