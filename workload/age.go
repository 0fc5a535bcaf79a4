package workload

import (
	"math"
	"math/rand/v2"
)

// ConstAge is an Age that is always the same, in nanoseconds (a negative value counts as
// 0).
type ConstAge int64

// Draw returns the constant age (0 if it is negative).
func (a ConstAge) Draw(_ *rand.Rand) int64 { return max(int64(a), 0) }

// MaxAge is the oldest age an exponential age draws (its far tail is cut there): 10,000
// days, so a row time stays within the range time-ordered ids can encode
// (EpochOffsetMillis, about 34 years either side of t = 0).
const MaxAge = int64(10_000 * 24 * 3600 * 1e9)

// ExpAge is an Age drawn from the exponential distribution with the given mean, in
// nanoseconds: recent rows are the most likely targets, and the density halves every
// mean·ln 2. Draws are rounded to the nearest nanosecond (so the mean is kept) and capped
// at MaxAge; a mean <= 0 gives 0.
type ExpAge int64

// Draw returns an exponential age.
func (a ExpAge) Draw(r *rand.Rand) int64 {
	if a <= 0 {
		return 0
	}
	x := math.Round(r.ExpFloat64() * float64(a))
	if x >= float64(MaxAge) {
		return MaxAge
	}
	return int64(x)
}

// UniformAge is an Age uniform on the integers of [0, max] nanoseconds (both ends
// included); a max <= 0 gives 0.
type UniformAge int64

// Draw returns a uniform age.
func (a UniformAge) Draw(r *rand.Rand) int64 {
	switch {
	case a <= 0:
		return 0
	case a == math.MaxInt64:
		return int64(r.Uint64() >> 1)
	}
	return r.Int64N(int64(a) + 1)
}
