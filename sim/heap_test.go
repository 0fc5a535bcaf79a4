package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHeapAgainstSort checks the 4-ary heap against the obviously right answer: pushing
// events in random order (with many equal times) and popping them all must give them
// sorted by (time, insertion order). Interleaved pushes and pops, and holds followed by
// pushes and a release (as step and an event handler do), are checked against a sorted
// slice kept alongside.
func TestHeapAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		var h eventHeap
		var ref []event
		n := r.IntN(300)
		for i := 0; i < n; i++ {
			// Few distinct times, so ties are frequent and the sequence must break them;
			// some negative, as a model built through the API may have.
			at := Time(r.IntN(20) - 5)
			h.push(at, int32(i))
			ref = append(ref, event{at: at, seq: h.seq, idx: int32(i)})
			if r.IntN(4) == 0 && h.len() > 0 {
				slices.SortFunc(ref, cmpEvent)
				var got event
				held := r.IntN(2) == 0
				if held {
					got = h.hold()
				} else {
					got = h.pop()
				}
				if got.at != ref[0].at || got.seq != ref[0].seq || got.idx != ref[0].idx {
					t.Fatalf("trial %d: pop = %+v, want %+v (hold %v)", trial, got, ref[0], held)
				}
				ref = ref[1:]
				if held {
					// As an event handler: schedule none, one or two events (the first
					// takes the held event's place), then release.
					for k := r.IntN(3); k > 0; k-- {
						at := got.at + Time(r.IntN(5))
						h.push(at, int32(1000+k))
						ref = append(ref, event{at: at, seq: h.seq, idx: int32(1000 + k)})
					}
					h.release()
				}
			}
		}
		slices.SortFunc(ref, cmpEvent)
		for _, want := range ref {
			got := h.pop()
			if got.at != want.at || got.seq != want.seq || got.idx != want.idx {
				t.Fatalf("trial %d: pop = %+v, want %+v", trial, got, want)
			}
		}
		if h.len() != 0 {
			t.Fatalf("trial %d: %d events left", trial, h.len())
		}
	}
}

func cmpEvent(a, b event) int {
	switch {
	case a.less(&b):
		return -1
	case b.less(&a):
		return 1
	}
	return 0
}

// less is the order the heap keeps, written plainly: (at, seq).
func (a *event) less(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}
