package workload

import "math/rand/v2"

// UUID draws random 64-bit ids (all 2^64 values equally likely), ignoring the row time.
// It stands for a random uuid key: no locality, no order. Two draws collide with
// probability 2^-64, which the simulator ignores.
type UUID struct{}

// NewUUID returns a generator of random 64-bit ids.
func NewUUID() *UUID { return &UUID{} }

// Next returns a uniformly random uint64.
func (g *UUID) Next(r *rand.Rand, _ int64) uint64 { return r.Uint64() }

// Info reports an unbounded (Cardinality 0), unordered value space.
func (g *UUID) Info() Info { return Info{} }
