package workload

import "math/rand/v2"

// Time is the row time itself as a value: Next returns t + EpochOffset nanoseconds, the
// row time in nanoseconds since the epoch (see EpochOffsetMillis), as a uint64. It is
// time ordered (a later row has a larger value, equal rows equal values, so values are
// not unique) and stateless. TimeOf inverts it.
type Time struct{}

// NewTime returns a row-time generator.
func NewTime() *Time { return &Time{} }

// Next returns uint64(t + EpochOffset). It panics if t is before the epoch
// (t < -EpochOffset, about 34.8 years before t = 0); every later int64 t fits.
func (g *Time) Next(_ *rand.Rand, t int64) uint64 {
	if t < -EpochOffset {
		panic("workload: Time row time before the epoch")
	}
	return uint64(t) + uint64(EpochOffset)
}

// Info reports an unbounded, time-ordered value space.
func (g *Time) Info() Info { return Info{TimeOrdered: true} }

// TimeOf returns the row time (ns since t = 0) that Time encoded as v.
func TimeOf(v uint64) int64 { return int64(v - uint64(EpochOffset)) }
