package workload

// The time-ordered generators (Time, Snowflake, Sequence) encode the row time relative to
// one epoch placed EpochOffsetMillis milliseconds (2^40 ms, about 34.8 years) before the
// scenario's t = 0, so that history rows, which lie in the past (typically up to ten years
// back), still get positive values. Times before the epoch cannot be encoded and make
// those generators panic.
const (
	// EpochOffsetMillis is the distance from the epoch to t = 0, in milliseconds.
	EpochOffsetMillis int64 = 1 << 40
	// EpochOffsetMicros is the same distance in microseconds.
	EpochOffsetMicros = EpochOffsetMillis * 1000
	// EpochOffset is the same distance in nanoseconds (about 1.1e18).
	EpochOffset = EpochOffsetMillis * 1000_000
)

// floorDiv returns floor(a / b) for b > 0 (Go's / truncates toward zero).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// orderedIDs is the state shared by Snowflake and Sequence: ids are (unit << shift) plus
// a counter, unit being the row time in whole units since the epoch.
//
// For calls in non-decreasing row time, every id is strictly larger than the previous
// one: an id is unit<<shift, or the previous id + 1 if that is not larger. The counter
// thus restarts at 0 with each new unit and, if more than 2^shift rows share a unit,
// spills over into the following units (as a real snowflake service waits for the next
// millisecond), so the unit recovered from such an id can be later than the row's.
//
// A call whose unit is earlier than the latest unit seen (a row generated out of time
// order) gets unit<<shift plus a separate wrapping counter, and leaves the state alone:
// its id sorts correctly by time against all other ids but may repeat an earlier one.
type orderedIDs struct {
	started bool
	unit    int64  // unit of the latest in-order call
	last    uint64 // latest in-order id
	back    uint64 // counter for out-of-order calls
}

func (o *orderedIDs) next(unit int64, shift uint) uint64 {
	v := uint64(unit) << shift
	switch {
	case !o.started:
		o.started = true
	case unit < o.unit:
		v |= o.back & (1<<shift - 1)
		o.back++
		return v
	case v <= o.last:
		v = o.last + 1
	}
	o.unit, o.last = unit, v
	return v
}
