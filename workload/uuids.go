package workload

import "math/rand/v2"

// RandomTimeID generates the time-ordered ids that end in random bits instead of a
// counter: UUIDv7 and ULID (milliseconds of the row time, then random bits; RFC 9562, the
// ULID specification) and KSUID (seconds, then random bits). Only the leading 64 bits of
// such an id are simulated: the row time in whole units since the epoch (the whole units
// of EpochOffset before t = 0, so that units begin on t = 0's) in the high bits, shifted left by Bits, then Bits random bits. Ids of one
// unit sort in random order, ids of a later unit after them all, so under a range scheme
// every new row lands in the last range, as with Snowflake; with Bits = 22 the time part of
// a UUIDv7 or ULID id reads as a snowflake's (SnowflakeMillis).
type RandomTimeID struct {
	unit int64 // ns
	bits uint
}

// UUIDv7Bits and KSUIDBits are the random bits below the time of a simulated UUIDv7 or
// ULID id (milliseconds, as many bits as a snowflake's counter) and of a KSUID (seconds).
const (
	UUIDv7Bits = SnowflakeCounterBits
	KSUIDBits  = 32
)

// NewUUIDv7 returns a generator of UUIDv7 ids (ULIDs have the same layout).
func NewUUIDv7() *RandomTimeID { return &RandomTimeID{unit: 1_000_000, bits: UUIDv7Bits} }

// NewKSUID returns a generator of KSUIDs: seconds, then random bits.
func NewKSUID() *RandomTimeID { return &RandomTimeID{unit: 1_000_000_000, bits: KSUIDBits} }

// Next returns the id of a row at time t. It panics if t is outside [-2^40 ms, 2^40 ms)
// (for KSUIDs, from the first whole second of it), as Snowflake does.
func (g *RandomTimeID) Next(r *rand.Rand, t int64) uint64 {
	return g.unitOf(t)<<g.bits | r.Uint64()>>(64-g.bits)
}

func (g *RandomTimeID) unitOf(t int64) uint64 {
	if t < -(EpochOffset/g.unit)*g.unit || t >= EpochOffset {
		panic("workload: RandomTimeID row time outside ±2^40 ms")
	}
	return uint64(floorDiv(t, g.unit) + EpochOffset/g.unit)
}

// Bounds returns the ids of the unit (millisecond or second) holding t.
func (g *RandomTimeID) Bounds(t int64) (lo, hi uint64) {
	u := g.unitOf(t)
	return u << g.bits, (u+1)<<g.bits - 1
}

// Info reports an unbounded, time-ordered value space.
func (g *RandomTimeID) Info() Info { return Info{TimeOrdered: true} }

// RandomTimeIDTime returns the start of the unit that id v of a generator with these
// parameters was drawn in, in nanoseconds since t = 0.
func RandomTimeIDTime(v uint64, unit int64, bits uint) int64 {
	return (int64(v>>bits) - EpochOffset/unit) * unit
}

var (
	_ Generator            = (*RandomTimeID)(nil)
	_ TimeOrderedGenerator = (*RandomTimeID)(nil)
)
