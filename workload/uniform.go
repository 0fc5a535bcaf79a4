package workload

import "math/rand/v2"

// Uniform draws integer ids uniformly from [0, n), ignoring the row time.
type Uniform struct {
	n uint64
}

// NewUniform returns a generator of ids uniform on [0, n). It panics if n is 0.
func NewUniform(n uint64) *Uniform {
	if n == 0 {
		panic("workload: NewUniform with n == 0")
	}
	return &Uniform{n: n}
}

// Next returns an id uniform on [0, n) (unbiased: rand.Rand.Uint64N rejects as needed).
func (g *Uniform) Next(r *rand.Rand, _ int64) uint64 { return r.Uint64N(g.n) }

// Info reports Cardinality n.
func (g *Uniform) Info() Info { return Info{Cardinality: g.n} }

// Prob returns the probability that Next returns v: 1/n on [0, n).
func (g *Uniform) Prob(v uint64) float64 {
	if v >= g.n {
		return 0
	}
	return 1 / float64(g.n)
}
