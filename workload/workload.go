package workload

import "math/rand/v2"

// Times in this package are int64 nanoseconds of simulated time since t=0 (the scenario's
// start). History rows have negative times. Rates are events per second.

// Never is returned by an arrival process that will produce no further arrival.
const Never = int64(1<<63 - 1)

// A Generator draws the value of one field for one request.
//
// Values are uint64: integer ids are themselves, categorical values are their index in
// the value list, time-ordered generators encode the row time so that a later row has a
// larger (or equal) value.
//
// Next must not allocate. A generator may keep state (the time-ordered ones do), so one
// generator value must not be used from several goroutines at once.
type Generator interface {
	// Next returns the field's value for a row whose row time is t.
	Next(r *rand.Rand, t int64) uint64
	// Info describes the values Next can produce.
	Info() Info
}

// Info describes a generator's value space; the key planner reads it.
type Info struct {
	// Cardinality is the number of distinct values the generator can produce
	// (0 when unbounded, as for time-ordered ids and uuids).
	Cardinality uint64
	// TimeOrdered reports whether the value grows with the row time
	// (snowflake, sequence, time).
	TimeOrdered bool
}

// An Arrivals process yields the issue times of a stream's requests.
//
// The caller chains calls: it passes the start of the stream to the first call and the
// previous result to every later one. Next returns the first arrival after t, which is
// never earlier than t; it can equal t, both on the first call (the process may begin
// exactly at its start) and when two arrivals fall within the same nanosecond (possible
// at rates near or above 1e9/s, since arrival times are rounded up to whole
// nanoseconds). The processes of this package remember the exact, unrounded time of the
// arrival they last returned and continue from it when t equals that result, so the
// rounding to nanoseconds does not accumulate.
type Arrivals interface {
	// Next returns the first arrival at or after t as described above, or Never.
	Next(r *rand.Rand, t int64) int64
}

// An Age draws how old the row a read or scan targets is, in nanoseconds (>= 0).
type Age interface {
	Draw(r *rand.Rand) int64
}

// Every generator, arrival process and age of the package satisfies its interface.
var (
	_ Generator = (*Uniform)(nil)
	_ Generator = (*Zipf)(nil)
	_ Generator = (*Hotspot)(nil)
	_ Generator = (*Categorical)(nil)
	_ Generator = (*Snowflake)(nil)
	_ Generator = (*Sequence)(nil)
	_ Generator = (*Time)(nil)
	_ Generator = (*UUID)(nil)
	_ Arrivals  = (*Poisson)(nil)
	_ Arrivals  = (*UniformArrivals)(nil)
	_ Age       = ConstAge(0)
	_ Age       = ExpAge(0)
	_ Age       = UniformAge(0)
)
