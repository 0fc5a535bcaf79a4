package pool

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Results land at their index whatever the number of workers, and no more than the
// pool's slots run at once, nested calls included.
func TestEachBoundsAndOrders(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		p := New(workers, nil)
		var running, peak atomic.Int64
		var mu sync.Mutex
		out := make([][]int, 5)
		p.Fork(5, func(outer int) {
			got := Map(p, 7, func(i int) int {
				n := running.Add(1)
				mu.Lock()
				peak.Store(max(peak.Load(), n))
				mu.Unlock()
				defer running.Add(-1)
				return outer*100 + i*i
			})
			out[outer] = got
		})
		for o, got := range out {
			for i, x := range got {
				if x != o*100+i*i {
					t.Fatalf("workers %d: result %d of search %d = %d, want %d", workers, i, o, x, o*100+i*i)
				}
			}
		}
		if peak.Load() > int64(workers) || peak.Load() < 1 {
			t.Errorf("workers %d: %d jobs ran at once", workers, peak.Load())
		}
	}
}

// Once stop reports true, no job starts: with one worker, stopping in job 3 runs jobs 0
// to 3 only.
func TestEachStops(t *testing.T) {
	var stopped atomic.Bool
	p := New(1, stopped.Load)
	var ran []int
	p.Each(10, func(i int) {
		ran = append(ran, i)
		if i == 3 {
			stopped.Store(true)
		}
	})
	if len(ran) != 4 || ran[3] != 3 {
		t.Errorf("ran %v, want [0 1 2 3]", ran)
	}
	if !p.Stopped() {
		t.Error("Stopped() = false after stop reported true")
	}
}
