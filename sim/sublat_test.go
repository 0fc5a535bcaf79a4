package sim

import (
	"math/rand/v2"
	"testing"
)

// TestSubLatencyQuantileMatchesLibrary holds SubLatencyQuantile, which walks the shard's
// dense counts, to hdrhistogram's own ValueAtQuantile on the same counts (the way it was
// computed before): 2,000 random histograms (seed 36; 1 to 4 filled cells of up to 1,000
// counts, or up to 60 cells), at the quantiles the readers use and at random ones, and
// exact equality: both must pick the same cell and report its highest equivalent value.
func TestSubLatencyQuantileMatchesLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 0))
	qs := []float64{0, 0.5, 0.9, 0.99, 0.999, 1}
	for h := range 2000 {
		sr := ShardResult{SubLatency: make([]uint32, shardCounts)}
		cells := 1 + rng.IntN(4)
		if h%2 == 1 {
			cells = 1 + rng.IntN(60)
		}
		for range cells {
			sr.SubLatency[rng.IntN(shardCounts)] += uint32(1 + rng.IntN(1000))
		}
		counts := make([]int64, shardCounts)
		for i, c := range sr.SubLatency {
			counts[i] = int64(c)
		}
		lib := shardLayout.histogram(counts)
		for _, q := range append(qs, rng.Float64()) {
			got, ok := sr.SubLatencyQuantile(q)
			want := Time(lib.ValueAtQuantile(100*q)+1)<<shardLatShift - 1
			if !ok || got != want {
				t.Fatalf("histogram %d, q=%v: got %d (ok %v), the library gives %d", h, q, got, ok, want)
			}
		}
	}
	if _, ok := (&ShardResult{SubLatency: make([]uint32, shardCounts)}).SubLatencyQuantile(0.99); ok {
		t.Error("an empty histogram gave a quantile")
	}
}

// TestCompactSubLatency: a finished run keeps each shard's counts from its first count
// that is not zero to its last, and every quantile is the one the dense counts give
// (quickstart-sized random shards, seed 37, exact equality), an empty shard included.
func TestCompactSubLatency(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 0))
	dense := make([]ShardResult, 300)
	for i := range dense {
		dense[i].SubLatency = make([]uint32, shardCounts)
		for range i % 7 {
			dense[i].SubLatency[rng.IntN(shardCounts)] += uint32(1 + rng.IntN(100))
		}
	}
	compact := make([]ShardResult, len(dense))
	for i := range dense {
		compact[i].SubLatency = append([]uint32(nil), dense[i].SubLatency...)
	}
	compactSubLatency(compact)
	kept := 0
	for i := range dense {
		kept += len(compact[i].SubLatency)
		if i%7 == 0 && len(compact[i].SubLatency) != 0 {
			t.Errorf("shard %d has no counts but keeps %d cells", i, len(compact[i].SubLatency))
		}
		for _, q := range []float64{0, 0.5, 0.99, 1} {
			a, aok := dense[i].SubLatencyQuantile(q)
			b, bok := compact[i].SubLatencyQuantile(q)
			if a != b || aok != bok {
				t.Fatalf("shard %d, q=%v: compact %d (%v), dense %d (%v)", i, q, b, bok, a, aok)
			}
		}
	}
	if kept >= len(dense)*shardCounts/2 {
		t.Errorf("kept %d cells of %d", kept, len(dense)*shardCounts)
	}
}
