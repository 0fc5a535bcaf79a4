package sweep

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/shardsim/shardsim/metrics"
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

// estimatedOpt summarizes optional values: the estimate is undefined when any replication
// has none; averaging over the others would hide that.
func estimatedOpt(xs []*float64) Estimate {
	vals := make([]float64, len(xs))
	for i, x := range xs {
		if x == nil {
			return undefined()
		}
		vals[i] = *x
	}
	return Estimated(vals)
}

// Defined reports whether the estimate has a value.
func (e Estimate) Defined() bool { return !math.IsNaN(e.Mean) }
