package trace

import (
	"cmp"
	"math"
	"slices"
)

// rankSamples is how many (time, value) pairs a rankSample keeps: a rank correlation of
// this many pairs has a standard error under 0.02, and the pairs take 128 KB.
const rankSamples = 1 << 13

// rankSample keeps an even sample of a stream of (time, value) pairs, in bounded memory,
// for their rank correlation (Spearman's): every stride-th pair of the stream, the stride
// doubling (and every other pair kept dropped) whenever the sample is full, so that the
// pairs kept are spread evenly over the whole stream however long it is.
type rankSample struct {
	x, y   []float64
	stride int64
	seen   int64
}

func newRankSample() rankSample {
	return rankSample{x: make([]float64, 0, rankSamples), y: make([]float64, 0, rankSamples), stride: 1}
}

// add offers the pair (x, y); it allocates nothing.
func (s *rankSample) add(x, y float64) {
	i := s.seen
	s.seen++
	if i%s.stride != 0 {
		return
	}
	if len(s.x) == cap(s.x) {
		// Keep the pairs at even places: those whose index is a multiple of twice the
		// stride.
		n := 0
		for j := 0; j < len(s.x); j += 2 {
			s.x[n], s.y[n] = s.x[j], s.y[j]
			n++
		}
		s.x, s.y = s.x[:n], s.y[:n]
		s.stride *= 2
		if i%s.stride != 0 {
			return
		}
	}
	s.x, s.y = append(s.x, x), append(s.y, y)
}

// corr is the rank correlation (Spearman's rho) of the pairs kept: the correlation
// (Pearson's) of their ranks, equal values sharing the mean of their ranks. 0 when either
// side holds a single value (or there are fewer than two pairs): no order to follow.
func (s *rankSample) corr() float64 {
	if len(s.x) < 2 {
		return 0
	}
	rx, ry := ranks(s.x), ranks(s.y)
	var w welford
	for i := range rx {
		w.add(rx[i], ry[i])
	}
	return w.corr()
}

// ranks returns the rank of each of xs (1 for the smallest), equal values sharing the
// mean of the ranks they span.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		r := float64(i+j+1) / 2 // the mean of ranks i+1 .. j
		for _, k := range idx[i:j] {
			out[k] = r
		}
		i = j
	}
	return out
}

// welford accumulates a correlation in one pass (Welford's updates of the means and
// co-moments).
type welford struct {
	n                     float64
	mx, my, sxx, syy, sxy float64
}

func (w *welford) add(x, y float64) {
	w.n++
	dx := x - w.mx
	w.mx += dx / w.n
	dy := y - w.my
	w.my += dy / w.n
	w.sxx += dx * (x - w.mx)
	w.syy += dy * (y - w.my)
	w.sxy += dx * (y - w.my)
}

func (w *welford) corr() float64 {
	if w.sxx <= 0 || w.syy <= 0 {
		return 0
	}
	return w.sxy / math.Sqrt(w.sxx*w.syy)
}
