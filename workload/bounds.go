package workload

// A TimeOrderedGenerator is a generator whose value grows with the row time. Bounds lets a
// range query on such a field be turned into a range of values.
type TimeOrderedGenerator interface {
	Generator
	// Bounds returns the smallest and largest value a row with row time t can get.
	Bounds(t int64) (lo, hi uint64)
}

var (
	_ TimeOrderedGenerator = (*Snowflake)(nil)
	_ TimeOrderedGenerator = (*Sequence)(nil)
	_ TimeOrderedGenerator = (*Time)(nil)
)

// Bounds returns the ids of the millisecond holding t: counter 0 to the largest counter.
func (g *Snowflake) Bounds(t int64) (lo, hi uint64) {
	ms := uint64(floorDiv(t, 1000_000) + EpochOffsetMillis)
	return ms << SnowflakeCounterBits, (ms+1)<<SnowflakeCounterBits - 1
}

// Bounds returns the ids of the microsecond holding t.
func (g *Sequence) Bounds(t int64) (lo, hi uint64) {
	us := uint64(floorDiv(t, 1000) + EpochOffsetMicros)
	return us << SequenceCounterBits, (us+1)<<SequenceCounterBits - 1
}

// Bounds returns the value of t itself, twice.
func (g *Time) Bounds(t int64) (lo, hi uint64) {
	v := uint64(t + EpochOffset)
	return v, v
}
