package waitlist

import (
	"math/rand/v2"
	"testing"
)

// TestTable checks the open-addressing table against a map under random inserts and
// removals, with keys that collide in their low bits to make long clusters.
func TestTable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tb := NewTable(0)
	ref := map[uint64]bool{}
	var held []uint64
	for range 200_000 {
		if len(held) > 0 && (len(held) > 300 || r.IntN(2) == 0) {
			i := r.IntN(len(held))
			k := held[i]
			held[i] = held[len(held)-1]
			held = held[:len(held)-1]
			s := tb.Find(k)
			if s < 0 {
				t.Fatalf("key %x held but not found", k)
			}
			tb.Remove(s)
			delete(ref, k)
			continue
		}
		k := r.Uint64N(1000) << r.UintN(12) // many keys share low bits
		if ref[k] != (tb.Find(k) >= 0) {
			t.Fatalf("key %x: map says %v, table says %v", k, ref[k], tb.Find(k) >= 0)
		}
		if !ref[k] {
			tb.Insert(k)
			ref[k] = true
			held = append(held, k)
		}
	}
	if tb.N != len(ref) {
		t.Fatalf("table holds %d keys, map %d", tb.N, len(ref))
	}
	for k := range ref {
		if tb.Find(k) < 0 {
			t.Fatalf("key %x lost", k)
		}
	}
}

// TestFIFO checks the ring against a slice under random pushes and pops.
func TestFIFO(t *testing.T) {
	var q FIFO
	var ref []int32
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 10000; i++ {
		if r.IntN(3) > 0 || len(ref) == 0 {
			q.Push(int32(i))
			ref = append(ref, int32(i))
		} else {
			if got := q.Pop(); got != ref[0] {
				t.Fatalf("pop = %d, want %d", got, ref[0])
			}
			ref = ref[1:]
		}
		if q.Len() != len(ref) {
			t.Fatalf("len = %d, want %d", q.Len(), len(ref))
		}
	}
}
