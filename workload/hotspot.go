package workload

import (
	"math"
	"math/rand/v2"
)

// Hotspot draws ids from [0, n) split into a hot set, the first ceil(hotFraction·n) ids,
// and a cold set, the rest: with probability hotOps the id is uniform over the hot set,
// otherwise uniform over the cold set. This is YCSB's HotspotIntegerGenerator (hot set at
// the low end of the range), except that the hot set size is rounded up, not down.
//
// Degenerate cases: when the hot set is empty (hotFraction·n rounds to 0) or is the whole
// range, the split is meaningless and the ids are uniform over [0, n).
type Hotspot struct {
	n     uint64
	hot   uint64  // size of the hot set, 0 < hot < n unless uniform
	p     float64 // probability of a hot draw
	uni   bool    // degenerate: uniform over [0, n)
	coldN uint64  // n - hot
}

// NewHotspot returns a hotspot generator. It panics if n is 0 or if hotFraction or hotOps
// is outside [0, 1].
func NewHotspot(n uint64, hotFraction, hotOps float64) *Hotspot {
	if n == 0 {
		panic("workload: NewHotspot with n == 0")
	}
	if !(hotFraction >= 0 && hotFraction <= 1) || !(hotOps >= 0 && hotOps <= 1) {
		panic("workload: NewHotspot fractions must be in [0, 1]")
	}
	hot := uint64(math.Ceil(hotFraction * float64(n)))
	if hot > n {
		hot = n
	}
	g := &Hotspot{n: n, hot: hot, p: hotOps, coldN: n - hot}
	g.uni = hot == 0 || hot == n
	return g
}

// Next returns an id; t is ignored.
func (g *Hotspot) Next(r *rand.Rand, _ int64) uint64 {
	if g.uni {
		return r.Uint64N(g.n)
	}
	if r.Float64() < g.p {
		return r.Uint64N(g.hot)
	}
	return g.hot + r.Uint64N(g.coldN)
}

// Info reports Cardinality n.
func (g *Hotspot) Info() Info { return Info{Cardinality: g.n} }

// HotSize returns the number of hot ids, [0, HotSize()) (0 or n in the degenerate,
// uniform cases).
func (g *Hotspot) HotSize() uint64 { return g.hot }

// Prob returns the probability that Next returns v.
func (g *Hotspot) Prob(v uint64) float64 {
	switch {
	case v >= g.n:
		return 0
	case g.uni:
		return 1 / float64(g.n)
	case v < g.hot:
		return g.p / float64(g.hot)
	}
	return (1 - g.p) / float64(g.coldN)
}
