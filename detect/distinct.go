package detect

// Distinct estimates the number of distinct values in a stream from their 64-bit hashes by
// the k-minimum-values method (Bar-Yossef et al. 2002; Beyer et al. 2007): it keeps the k
// smallest distinct hashes seen. While fewer than k distinct hashes arrived it knows them
// all and the count is exact; afterwards, with u the k-th smallest hash as a fraction of
// 2^64, (k-1)/u is an unbiased estimate whose relative standard error is about
// 1/sqrt(k-2). The hashes must be uniform over 64 bits (see Hash64).
type Distinct struct {
	heap []uint64 // a max-heap of the k smallest hashes seen
	ix   index    // the hashes in heap
	k    int
}

// DistinctK is the hashes the engine's distinct-partition counters keep: their counts are
// exact below it, estimates (relative standard error about 1.6%) above.
const DistinctK = 4096

// NewDistinct returns an estimator that keeps k hashes (at least 2).
func NewDistinct(k int) *Distinct {
	k = max(k, 2)
	return &Distinct{heap: make([]uint64, 0, k), ix: newIndex(k), k: k}
}

// Add records hash h.
func (d *Distinct) Add(h uint64) {
	full := len(d.heap) == d.k
	if full && h >= d.heap[0] {
		return
	}
	if d.ix.get(h) >= 0 {
		return
	}
	if !full {
		d.heap = append(d.heap, h)
		d.ix.put(h, 0)
		for i := len(d.heap) - 1; i > 0; {
			p := (i - 1) / 2
			if d.heap[p] >= d.heap[i] {
				break
			}
			d.heap[p], d.heap[i] = d.heap[i], d.heap[p]
			i = p
		}
		return
	}
	d.ix.del(d.heap[0])
	d.ix.put(h, 0)
	d.heap[0] = h
	n := len(d.heap)
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && d.heap[c+1] > d.heap[c] {
			c++
		}
		if d.heap[c] <= d.heap[i] {
			break
		}
		d.heap[c], d.heap[i] = d.heap[i], d.heap[c]
		i = c
	}
}

// Exact reports whether Estimate is an exact count (fewer than k distinct hashes seen).
func (d *Distinct) Exact() bool { return len(d.heap) < d.k }

// Estimate returns the estimated number of distinct hashes added.
func (d *Distinct) Estimate() float64 {
	if d.Exact() {
		return float64(len(d.heap))
	}
	// The k-th smallest hash as a fraction of 2^64; +1 keeps a hash of 0 from dividing by 0.
	u := (float64(d.heap[0]) + 1) / (1 << 64)
	return float64(d.k-1) / u
}
