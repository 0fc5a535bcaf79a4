package workload

import "math/rand/v2"

// Snowflake generates time-ordered 64-bit ids in the manner of Twitter's Snowflake: the
// high bits hold the row time in milliseconds since the epoch (see EpochOffsetMillis,
// 2^40 ms before t = 0), shifted left by SnowflakeCounterBits = 22; the low 22 bits hold a
// per-generator counter (Twitter's layout has 41 time bits, then 10 machine bits and a
// 12-bit sequence; here machine and sequence bits form one counter).
//
// Row times from -2^40 ms to 2^40 ms (±34.8 years around t = 0) are accepted, so ids are
// below 2^63 and stay positive as signed integers. The counter restarts at 0 in each new
// millisecond; for calls with non-decreasing row times the ids are strictly increasing
// (so monotone non-decreasing in row time, and unique). If more than 2^22 rows share a
// millisecond the counter spills into the next millisecond, and SnowflakeMillis then
// reports a later time than the row's; a row out of time order (earlier than the previous
// call's millisecond) gets a correctly ordered but possibly repeated id. See orderedIDs.
type Snowflake struct {
	o orderedIDs
}

// SnowflakeCounterBits is the width of a snowflake id's counter field.
const SnowflakeCounterBits = 22

// NewSnowflake returns a snowflake id generator.
func NewSnowflake() *Snowflake { return &Snowflake{} }

// Next returns the id of a row at time t. It panics if t is outside [-2^40 ms, 2^40 ms).
func (g *Snowflake) Next(_ *rand.Rand, t int64) uint64 {
	ms := floorDiv(t, 1000_000) + EpochOffsetMillis
	if ms < 0 || ms >= 2*EpochOffsetMillis {
		panic("workload: Snowflake row time outside ±2^40 ms")
	}
	return g.o.next(ms, SnowflakeCounterBits)
}

// Info reports an unbounded, time-ordered value space.
func (g *Snowflake) Info() Info { return Info{TimeOrdered: true} }

// SnowflakeMillis returns the row time of snowflake id v in milliseconds since t = 0:
// floor(t / 1e6) for the t it was generated for (barring counter spill-over, see
// Snowflake). Multiply by 1e6 for nanoseconds: the row was in
// [ms·1e6, (ms+1)·1e6).
func SnowflakeMillis(v uint64) int64 {
	return int64(v>>SnowflakeCounterBits) - EpochOffsetMillis
}
