package sim

import (
	"math/rand/v2"
	"testing"
)

// TestWindowHistMatchesHdrHistogram holds the compact window histogram to the library it
// replaces: for every cell of the window layout alone, and for 2,000 random histograms of
// 1 to 300 cells (PCG seed 5, 6) with counts up to 10^6, the total and the values at the
// percentiles 0, 0.1, 1, 50, 90, 99, 99.9, 99.99, 100 and one drawn at random are those of
// an HdrHistogram holding the same counts. It also checks that RecordValues lands each value in
// the cell the engine's dense counting uses, and that Histogram() gives the counts back.
func TestWindowHistMatchesHdrHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	percentiles := []float64{0, 0.1, 1, 50, 90, 99, 99.9, 99.99, 100, 0}
	check := func(counts []int64) {
		t.Helper()
		h := compactHist(counts)
		lib := windowLayout.histogram(counts)
		if h.TotalCount() != lib.TotalCount() {
			t.Fatalf("total %d, library %d", h.TotalCount(), lib.TotalCount())
		}
		percentiles[len(percentiles)-1] = 100 * r.Float64()
		for _, p := range percentiles {
			if got, want := h.ValueAtQuantile(p), lib.ValueAtQuantile(p); got != want {
				t.Fatalf("percentile %v: %d, library %d (cells %v)", p, got, want, h.cells)
			}
		}
		if back := h.Histogram(); !back.Equals(lib) {
			t.Fatalf("Histogram() differs from the library's histogram of the same counts")
		}
	}
	counts := make([]int64, windowLayout.countsN)
	for i := range counts {
		counts[i] = 1 + r.Int64N(1000)
		check(counts)
		counts[i] = 0
	}
	for range 2000 {
		n := 1 + r.IntN(300)
		for range n {
			counts[r.IntN(len(counts))] = 1 + r.Int64N(1_000_000)
		}
		check(counts)
		clear(counts)
	}
	// RecordValues against the dense index the engine counts with.
	var h WindowHist
	for range 10_000 {
		us := 1 + r.Int64N(1<<uint(r.IntN(34)))
		us = min(us, histMaxMicros)
		h.RecordValues(us, 3)
		counts[windowLayout.index(us)] += 3
	}
	if !h.Histogram().Equals(windowLayout.histogram(counts)) {
		t.Fatal("RecordValues put values in other cells than the engine's counting")
	}
	var empty WindowHist
	if empty.TotalCount() != 0 || empty.ValueAtQuantile(50) != 0 || empty.Histogram() != nil {
		t.Fatal("the zero WindowHist is not empty")
	}
}
