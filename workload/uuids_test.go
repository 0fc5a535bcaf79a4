package workload

import (
	"testing"
)

// TestRandomTimeIDs checks UUIDv7 (and ULID) and KSUID ids over 200,000 non-decreasing row
// times from -10 to +10 years (rowTimes, seed 12): an id lies within Bounds of its row time
// (so a later unit's ids sort after all of an earlier unit's: time order between units),
// RandomTimeIDTime gives back the start of its unit (floor(t / unit)), the UUIDv7 time part
// reads as a snowflake's (SnowflakeMillis), and the low bits are random: over the ids, each
// of the low Bits bits is set in half of them within 1% (200,000 fair bits: the standard
// error is 0.11%, so 1% is 9 standard errors).
func TestRandomTimeIDs(t *testing.T) {
	r := newRand(3)
	ts := rowTimes(200_000)
	for _, c := range []struct {
		g    *RandomTimeID
		unit int64
		bits uint
	}{{NewUUIDv7(), 1_000_000, UUIDv7Bits}, {NewKSUID(), 1_000_000_000, KSUIDBits}} {
		if i := c.g.Info(); !i.TimeOrdered || i.Cardinality != 0 {
			t.Fatalf("Info %+v", i)
		}
		ones := make([]int, c.bits)
		var prevUnit int64
		var prevMax uint64
		for n, at := range ts {
			v := c.g.Next(r, at)
			lo, hi := c.g.Bounds(at)
			if v < lo || v > hi {
				t.Fatalf("unit %d: id %#x of t=%d outside its bounds [%#x, %#x]", c.unit, v, at, lo, hi)
			}
			start := RandomTimeIDTime(v, c.unit, c.bits)
			if start > at || at-start >= c.unit {
				t.Fatalf("unit %d: id of t=%d reads as the unit starting at %d", c.unit, at, start)
			}
			if c.bits == UUIDv7Bits && SnowflakeMillis(v)*1_000_000 != start {
				t.Fatalf("uuidv7 id of t=%d: SnowflakeMillis %d, want %d ms", at, SnowflakeMillis(v), start/1_000_000)
			}
			u := floorDiv(at, c.unit)
			if n > 0 && u > prevUnit && v <= prevMax {
				t.Fatalf("unit %d: id %#x of a later unit at or below %#x", c.unit, v, prevMax)
			}
			prevMax = max(prevMax, v)
			prevUnit = u
			for b := range c.bits {
				ones[b] += int(v >> b & 1)
			}
		}
		for b, n := range ones {
			if share := float64(n) / float64(len(ts)); share < 0.49 || share > 0.51 {
				t.Errorf("unit %d: low bit %d set in %.4f of the ids, want 0.5 within 0.01", c.unit, b, share)
			}
		}
	}
}
