package keyspace

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// SchemeRedisCluster is Redis Cluster's hash slots, a range of them on each shard.
const SchemeRedisCluster SchemeKind = "redis_cluster"

func init() {
	registerScheme(SchemeRedisCluster, schemeDef{rank: 3, slots: true,
		keys:    []SchemeKey{{Name: "slots", Type: reflect.TypeFor[[][]int]()}},
		resolve: resolveSlots, afterKey: true,
		shards: func(in SchemeInput) int {
			slots, _ := keyValue[[][]int](in, "slots")
			return len(slots) // one shard a slot range
		},
		describe: func(o SchemeOptions, shards int) (string, string) {
			if r, _ := o.(SlotOptions); len(r.Slots) > 0 {
				// Each slot range is a shard: the tables' shard rows are the slot ranges.
				return "", fmt.Sprintf("%d slot ranges (shard %s)", shards, slotList(r.Slots))
			}
			return "", ""
		},
		build: func(c SchemeConfig) (Scheme, error) {
			o, _ := c.Options.(SlotOptions)
			return NewRedisCluster(o.Slots, c.TextParts), nil
		}})
}

// SlotOptions are redis_cluster's options: shard i's slot range.
type SlotOptions struct {
	Slots []SlotRange
}

// resolveSlots checks the slot ranges (docs/keys.md, "Redis Cluster"): given, they must
// cover the 16,384 slots once, one range a shard; omitted, the slots are split evenly over
// the shards as redis-cli --cluster create splits them over the masters.
func resolveSlots(in SchemeInput, t *SchemeTable) SchemeOptions {
	var o SlotOptions
	if t.Split {
		in.Add("keyspace.split", "not with scheme = \"redis_cluster\": a Redis Cluster moves slots only when told to (resharding), never by itself")
	}
	if Salted(t.Salt) && t.Replay >= 0 {
		in.Add("keyspace.salt", "not with scheme = \"redis_cluster\" and a stream that replays a log (streams[%d]): the log's key text decides its slot, a salt bucket cannot be added to it", t.Replay)
	}
	slots, _ := keyValue[[][]int](in, "slots")
	if len(slots) == 0 {
		if t.Shards > RedisSlots {
			in.Add("keyspace.shards", "must be at most %d with scheme = \"redis_cluster\", one slot range a shard (got %d)", RedisSlots, t.Shards)
			return o
		}
		if t.Shards > 0 {
			o.Slots = EvenSlots(t.Shards)
		}
		return o
	}
	if len(slots) != t.Shards && t.Shards > 0 {
		in.Add("keyspace.slots", "has %d slot ranges for keyspace.shards = %d: each range is one shard (leave shards out to take the ranges' count)", len(slots), t.Shards)
		return o
	}
	ranges := make([]SlotRange, 0, len(slots))
	for i, r := range slots {
		if len(r) != 2 {
			in.Add(fmt.Sprintf("keyspace.slots[%d]", i), "must be [first, last] (got %d numbers)", len(r))
			return o
		}
		ranges = append(ranges, SlotRange{First: r[0], Last: r[1]})
	}
	if err := CheckSlots(ranges); err != nil {
		in.Add("keyspace.slots", "%v", err)
		return o
	}
	o.Slots = ranges
	return o
}

// slotList says which slots each shard holds, the first four and the last when there are
// more: "0: 0-5460, 1: 5461-10922, 2: 10923-16383".
func slotList(r []SlotRange) string {
	parts := make([]string, 0, 5)
	for i, sr := range r {
		if i == 4 && len(r) > 5 {
			parts = append(parts, "...")
			i, sr = len(r)-1, r[len(r)-1]
		} else if i > 4 {
			break
		}
		parts = append(parts, fmt.Sprintf("%d: %d-%d", i, sr.First, sr.Last))
	}
	return strings.Join(parts, ", ")
}

// RedisSlots is the number of hash slots of a Redis Cluster.
const RedisSlots = 16384

// crc16Table is the table of CRC16-XMODEM (polynomial 0x1021, initial value 0, no
// reflection), the checksum Redis Cluster maps keys to slots with.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for b := 0; b < 8; b++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// CRC16 is CRC16-XMODEM of b: CRC16("123456789") = 0x31C3.
func CRC16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crc16Table[byte(c>>8)^x]
	}
	return c
}

// KeySlot is the Redis Cluster slot of the key text b: CRC16 of its hash tag (the bytes
// between the first '{' and the next '}', when there are any) or else of the whole key,
// mod 16384. See docs/keys.md, "Redis Cluster".
func KeySlot(b []byte) int {
	for i, c := range b {
		if c != '{' {
			continue
		}
		for j := i + 1; j < len(b); j++ {
			if b[j] == '}' {
				if j > i+1 {
					b = b[i+1 : j]
				}
				break
			}
		}
		break
	}
	return int(CRC16(b) & (RedisSlots - 1))
}

// A key part read from a log as text cannot be turned back into its text, so under the
// redis_cluster scheme a replayed log's part carries the slot of its record's whole key in
// its top bits: SlotValue(slot, h) keeps 49 bits of the part's own value h below the slot's
// 14 bits and a marker bit. The scheme reads the slot of such a part (TextSlot) instead of
// the slot of the part's decimal text; a value of the same field drawn from a generator
// reads as some text key's slot, which is what it stands for.
const slotShift = 49

// SlotValue is the value of a text key part of a key whose slot is slot.
func SlotValue(slot int, h uint64) uint64 {
	return 1<<63 | uint64(slot&(RedisSlots-1))<<slotShift | h&(1<<slotShift-1)
}

// TextSlot is the slot a text key part's value carries (see SlotValue).
func TextSlot(v uint64) int { return int(v >> slotShift & (RedisSlots - 1)) }

// SlotRange is a contiguous range of slots, First to Last included.
type SlotRange struct{ First, Last int }

// EvenSlots splits the 16,384 slots into n contiguous ranges in order, as
// redis-cli --cluster create does: with p = 16384 / n, range i ends at the slot nearest
// to (i+1) x p - 1 (the last at 16383) and the next begins after it. Three nodes get
// [0, 5460], [5461, 10922] and [10923, 16383].
func EvenSlots(n int) []SlotRange {
	r := make([]SlotRange, n)
	per := float64(RedisSlots) / float64(n)
	first := 0
	for i := range r {
		last := int(math.Round(float64(i+1)*per - 1))
		if i == n-1 || last > RedisSlots-1 {
			last = RedisSlots - 1
		}
		r[i] = SlotRange{First: first, Last: last}
		first = last + 1
	}
	return r
}

// CheckSlots returns an error unless ranges cover every slot once.
func CheckSlots(ranges []SlotRange) error {
	var owner [RedisSlots]int16
	for i, r := range ranges {
		if r.First < 0 || r.Last >= RedisSlots || r.First > r.Last {
			return fmt.Errorf("range %d [%d, %d]: a range is [first, last] with 0 <= first <= last <= %d", i, r.First, r.Last, RedisSlots-1)
		}
		for s := r.First; s <= r.Last; s++ {
			if owner[s] != 0 {
				return fmt.Errorf("range %d [%d, %d] overlaps range %d at slot %d", i, r.First, r.Last, owner[s]-1, s)
			}
			owner[s] = int16(i + 1)
		}
	}
	for s, o := range owner {
		if o == 0 {
			return fmt.Errorf("slot %d is in no range: the ranges must cover slots 0 to %d", s, RedisSlots-1)
		}
	}
	return nil
}

// RedisCluster is Redis Cluster's scheme: shard i is the slot range ranges[i], and a key
// belongs to the range that holds its slot. The key's text is its parts written as decimal
// numbers joined by ':' (salt bucket first), except that a part read from a log as text
// gives its record's slot (SlotValue).
type RedisCluster struct {
	owner  []int16 // slot -> shard
	ranges []SlotRange
	text   uint8 // bit i: key part i is text from a log
}

// NewRedisCluster returns the scheme over the slot ranges, which must cover every slot once
// (CheckSlots); textParts has bit i set when key part i (salt included) is text read from a
// log. It panics on bad ranges.
func NewRedisCluster(ranges []SlotRange, textParts uint8) *RedisCluster {
	if err := CheckSlots(ranges); err != nil {
		panic("keyspace: NewRedisCluster: " + err.Error())
	}
	r := &RedisCluster{owner: make([]int16, RedisSlots), ranges: append([]SlotRange(nil), ranges...), text: textParts}
	for i, sr := range ranges {
		for s := sr.First; s <= sr.Last; s++ {
			r.owner[s] = int16(i)
		}
	}
	return r
}

// Slot returns the slot of k.
func (r *RedisCluster) Slot(k *Key) int {
	if r.text != 0 {
		for i := uint8(0); i < k.N; i++ {
			if r.text&(1<<i) != 0 {
				return TextSlot(k.P[i])
			}
		}
	}
	var buf [MaxParts * 21]byte
	b := buf[:0]
	for i := uint8(0); i < k.N; i++ {
		if i > 0 {
			b = append(b, ':')
		}
		b = strconv.AppendUint(b, k.P[i], 10)
	}
	return int(CRC16(b) & (RedisSlots - 1)) // decimal text holds no '{'
}

// Shard returns the shard (slot range) that owns k.
func (r *RedisCluster) Shard(k *Key) int { return int(r.owner[r.Slot(k)]) }

// Shards returns the number of slot ranges.
func (r *RedisCluster) Shards() int { return len(r.ranges) }

// Ranges returns the slot ranges, shard by shard. The slice must not be modified.
func (r *RedisCluster) Ranges() []SlotRange { return r.ranges }
