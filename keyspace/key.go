package keyspace

import (
	"fmt"
	"math/rand/v2"

	"github.com/shardsim/shardsim/internal/splitmix"
)

// MaxParts is the largest number of parts a key can have, salt included.
const MaxParts = 8

// A Key is a partition key: a short tuple of 64-bit parts compared part by part (range
// scheme) or hashed whole (hash scheme). It is a value type so that building one never
// allocates.
type Key struct {
	N uint8
	P [MaxParts]uint64
}

// Parts returns the key's parts. The slice aliases k.
func (k *Key) Parts() []uint64 { return k.P[:k.N] }

// Compare orders keys as tuples, part by part; a key that is a prefix of another sorts first.
func (k *Key) Compare(o *Key) int {
	n := min(k.N, o.N)
	for i := uint8(0); i < n; i++ {
		switch {
		case k.P[i] < o.P[i]:
			return -1
		case k.P[i] > o.P[i]:
			return 1
		}
	}
	switch {
	case k.N < o.N:
		return -1
	case k.N > o.N:
		return 1
	}
	return 0
}

// Hash is a stable 64-bit hash of the whole key: the same on every machine and release,
// because shard placement (and so every result) depends on it.
func (k *Key) Hash() uint64 {
	h := keyHashSeed ^ uint64(k.N)
	for i := uint8(0); i < k.N; i++ {
		h = splitmix.Mix(h ^ splitmix.Mix(k.P[i]+uint64(i)*0x632be59bd9b4e019))
	}
	return h
}

const keyHashSeed = 0x9e3779b97f4a7c15

// hashOne is Hash of the one-part key (v), written out for the planner's common case.
func hashOne(v uint64) uint64 { return splitmix.Mix(keyHashSeed ^ 1 ^ splitmix.Mix(v)) }

// Hash64 is the stable hash used for hash(f, N) parts and salt derivation.
func Hash64(v uint64) uint64 { return splitmix.Mix(v ^ 0x2545f4914f6cdd1d) }

// PartKind says how one key part is derived from a row.
type PartKind uint8

const (
	// FieldPart is a field's value as it is.
	FieldPart PartKind = iota
	// TimeBucketPart is the bucket floor((row time + Design.Clock) / Width) of the wall
	// clock: hour(f), day(f), minute(f), bucket(f, "15m"). See Bucket for its encoding.
	TimeBucketPart
	// HashPart is Hash64(field) mod Mod: hash(f, N).
	HashPart
)

// A Part is one component of the partition key.
type Part struct {
	Kind  PartKind
	Field int    // index of the field in the request's field vector
	Width int64  // bucket width in ns, for TimeBucketPart
	Mod   uint64 // modulus, for HashPart
	Name  string // as written in the scenario, e.g. "hour(ts)"
}

// SaltMode says how a write picks its salt bucket.
type SaltMode uint8

const (
	// SaltRandom draws a bucket uniformly per write; reads must visit every bucket.
	SaltRandom SaltMode = iota
	// SaltRoundRobin cycles through the buckets; reads must visit every bucket.
	SaltRoundRobin
	// SaltHash derives the bucket from SaltField, so a read that knows it visits one.
	SaltHash
)

// saltModeNames are the salt modes as a scenario names them (docs/scenario.md,
// keyspace.salt_mode), in SaltMode's order.
var saltModeNames = [...]string{"random", "round_robin", "hash"}

// String is the mode's name in a scenario.
func (m SaltMode) String() string { return saltModeNames[m] }

// SaltModeNames lists the salt modes' names, the default (random) first.
func SaltModeNames() []string { return saltModeNames[:] }

// ParseSaltMode returns the salt mode named name, and whether there is one.
func ParseSaltMode(name string) (SaltMode, bool) {
	for m, n := range saltModeNames {
		if n == name {
			return SaltMode(m), true
		}
	}
	return SaltRandom, false
}

// A Design is a key design: the parts and the optional salt prefix.
type Design struct {
	Parts     []Part
	Salt      uint64 // buckets; 0 or 1 means no salt
	SaltMode  SaltMode
	SaltField int // field index, for SaltHash
	// Clock is the wall-clock time of day at t = 0 in ns (the scenario's start), so that
	// hour(ts) buckets begin on the hour of the clock, not at t = 0.
	Clock int64
	// Copies, when set, stores some hot rows as several copies; nil: none.
	Copies *Copies
}

// Copies stores the rows whose field Field has a value in Keys as Count copies on
// different partitions, so that reads of a hot key spread over several shards while each
// write pays for every copy. Copy 0 is the row's ordinary key; copy c >= 1 is that key with
// one more, trailing part c. On a range scheme a copy sorts right after the original and
// usually shares its shard: copies are meant for hash schemes. Salt applies as without
// copies, the copy part comes after it: a salted copied row has Count copies in its salt
// bucket, and a read that visits every bucket reads the same copy in each.
type Copies struct {
	Field int             // index of the field in the request's field vector
	Keys  map[uint64]bool // the field's values whose rows are copied
	Count int             // copies of each such row, at least 2
}

// Validate reports whether the design can build its keys: at most MaxParts parts, with the
// salt and the copy part counted, positive bucket widths and moduli, and Copies sound.
func (d *Design) Validate() error {
	n := len(d.Parts)
	if d.Salted() {
		n++
	}
	if d.Copies != nil {
		n++
	}
	if n > MaxParts {
		return fmt.Errorf("the key has %d parts with salt and copies, more than %d", n, MaxParts)
	}
	for i, p := range d.Parts {
		switch {
		case p.Kind == TimeBucketPart && p.Width <= 0:
			return fmt.Errorf("key part %d (%s): time bucket width %d is not positive", i, p.Name, p.Width)
		case p.Kind == HashPart && p.Mod == 0:
			return fmt.Errorf("key part %d (%s): hash modulus is 0", i, p.Name)
		}
	}
	if c := d.Copies; c != nil {
		if c.Count < 2 {
			return fmt.Errorf("copies: count %d, want at least 2", c.Count)
		}
		if c.Field < 0 {
			return fmt.Errorf("copies: field index %d is negative", c.Field)
		}
	}
	return nil
}

// CopiesOf returns how many copies the row with these field values is stored as: Count
// for a copied row, 1 for any other.
func (d *Design) CopiesOf(fields []uint64) int {
	if c := d.Copies; c != nil && c.Keys[fields[c.Field]] {
		return c.Count
	}
	return 1
}

// withCopy turns the ordinary key k into the key of copy c (copy 0 is k itself).
func withCopy(k *Key, c uint64) {
	if c > 0 {
		k.P[k.N] = c
		k.N++
	}
}

// CopyKey turns the ordinary key k of a copied row into the key of its copy c.
func CopyKey(k *Key, c int) { withCopy(k, uint64(c)) }

// Bucket is the key part value of time bucket b (which is negative in the history): b with
// its sign bit flipped, so that buckets compare as unsigned integers in time order and
// consecutive buckets have consecutive values.
func Bucket(b int64) uint64 { return uint64(b) ^ 1<<63 }

// BucketOf returns the key part value of the bucket of width w that holds row time t.
func (d *Design) BucketOf(t, w int64) uint64 { return Bucket(floorDiv(t+d.Clock, w)) }

// Salted reports whether keys carry a salt prefix.
func (d *Design) Salted() bool { return Salted(d.Salt) }

// Salted reports whether a design of the given number of salt buckets salts its keys: one
// bucket (or none given) is an unsalted key. Every reader of a design asks this, not the
// count.
func Salted[N ~int | ~uint64](buckets N) bool { return buckets > 1 }

// Key builds the key of a row from its field values and row time, with the given salt
// bucket (ignored when the design is not salted).
func (d *Design) Key(fields []uint64, rowTime int64, salt uint64) Key {
	var k Key
	d.KeyInto(&k, fields, rowTime, salt)
	return k
}

// KeyInto is Key writing into k, which saves copying the key on the hot path.
func (d *Design) KeyInto(k *Key, fields []uint64, rowTime int64, salt uint64) {
	k.N = 0
	if d.Salted() {
		k.P[0] = salt
		k.N = 1
	}
	for i := range d.Parts {
		p := &d.Parts[i]
		var v uint64
		switch p.Kind {
		case FieldPart:
			v = fields[p.Field]
		case TimeBucketPart:
			v = d.BucketOf(rowTime, p.Width)
		case HashPart:
			v = Hash64(fields[p.Field]) % p.Mod
		}
		k.P[k.N] = v
		k.N++
	}
}

// WriteSalt picks the salt bucket of a write. counter is the caller's round-robin state.
func (d *Design) WriteSalt(r *rand.Rand, fields []uint64, counter *uint64) uint64 {
	if !d.Salted() {
		return 0
	}
	switch d.SaltMode {
	case SaltRoundRobin:
		s := *counter % d.Salt
		*counter++
		return s
	case SaltHash:
		return Hash64(fields[d.SaltField]) % d.Salt
	default:
		return r.Uint64N(d.Salt)
	}
}

// floorDiv divides rounding toward minus infinity, so that history (negative times) buckets
// like the present.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
