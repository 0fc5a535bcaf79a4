package workload

import "math/rand/v2"

// Sequence generates auto-increment-like ids: increasing with the row time, strictly, and
// unique. It does not count rows (a generator only sees the rows it is asked for, in any
// number of streams); instead an id is
//
//	(µs since the epoch) << SequenceCounterBits | counter
//
// with the row time in whole microseconds since the epoch (EpochOffsetMicros before
// t = 0), SequenceCounterBits = 10, and a counter that restarts at 0 in each new
// microsecond. So a row at a later microsecond always has a larger id than every row at
// an earlier one, and for calls in non-decreasing row time the ids are strictly
// increasing: a row at a later time (even within the same microsecond) has a strictly
// larger id than any row generated before it. More than 1024 rows in one microsecond
// (1e9 rows/s) spill into the next microsecond's ids. A row out of time order gets a
// correctly ordered but possibly repeated id. See orderedIDs.
//
// Row times from the epoch (-34.8 years) to about +250 years are accepted; ids are below
// 2^63.
type Sequence struct {
	o orderedIDs
}

// SequenceCounterBits is the width of a sequence id's counter field.
const SequenceCounterBits = 10

// sequenceMaxMicros bounds the microseconds field so that ids stay below 2^63.
const sequenceMaxMicros = 1<<(63-SequenceCounterBits) - 1

// NewSequence returns a sequence id generator.
func NewSequence() *Sequence { return &Sequence{} }

// Next returns the id of a row at time t. It panics if t is before the epoch or more than
// about 250 years after t = 0.
func (g *Sequence) Next(_ *rand.Rand, t int64) uint64 {
	us := floorDiv(t, 1000) + EpochOffsetMicros
	if us < 0 || us > sequenceMaxMicros {
		panic("workload: Sequence row time out of range")
	}
	return g.o.next(us, SequenceCounterBits)
}

// Info reports an unbounded, time-ordered value space.
func (g *Sequence) Info() Info { return Info{TimeOrdered: true} }

// SequenceMicros returns the row time of sequence id v in microseconds since t = 0,
// floor(t / 1000) for the t it was generated for (barring spill-over, see Sequence).
func SequenceMicros(v uint64) int64 {
	return int64(v>>SequenceCounterBits) - EpochOffsetMicros
}
