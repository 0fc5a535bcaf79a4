package workload

import (
	"math/rand/v2"
	"testing"
)

// TestBounds checks that every value a time-ordered generator gives a row at time t lies in
// Bounds(t), and that the bounds of a later time never start below those of an earlier one
// (so a time range maps to a value range).
func TestBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, g := range []TimeOrderedGenerator{NewSnowflake(), NewSequence(), NewTime()} {
		tm := int64(-3_600_000_000_000)
		prevLo, prevHi := g.Bounds(tm)
		for i := 0; i < 100_000; i++ {
			tm += int64(r.IntN(3_000_000)) // 0 to 3 ms: several rows share a unit
			v := g.Next(r, tm)
			lo, hi := g.Bounds(tm)
			if v < lo || v > hi {
				t.Fatalf("%T: value %d at t=%d outside bounds [%d, %d]", g, v, tm, lo, hi)
			}
			if lo != prevLo && lo <= prevHi {
				t.Fatalf("%T: bounds at t=%d start at %d, inside the previous [%d, %d]", g, tm, lo, prevLo, prevHi)
			}
			prevLo, prevHi = lo, hi
		}
	}
}
