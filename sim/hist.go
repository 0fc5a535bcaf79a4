package sim

import (
	"cmp"
	"math/bits"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// histLayout is the bucket layout of an HdrHistogram of microseconds from 1 to
// histMaxMicros with a given number of significant digits. The engine counts latencies
// into plain arrays of that layout, one increment per request, and hands them to
// hdrhistogram.Import once a window (or the run) is over: the histograms are exactly those
// RecordValue would have built, without a call, an error check and a total per request.
type histLayout struct {
	digits  int
	max     int64 // the highest value: histMaxMicros, shardMaxMicros
	halfMag uint  // log2 of half the sub-bucket count
	mask    int64 // sub-bucket count - 1: values below it fall in bucket 0
	half    int   // half the sub-bucket count
	countsN int   // length of the counts array
}

// The layouts of the run-wide and the per-window histograms.
var (
	runLayout    = newHistLayout(histDigits, histMaxMicros)
	windowLayout = newHistLayout(windowHistDigits, histMaxMicros)
	// shardLayout is the per-shard subrequest histograms': 1 digit, shardCounts counts,
	// indexed on the hot path by shardIndex.
	shardLayout = newHistLayout(1, shardMaxMicros)
)

// The 1-digit layout as constants, so that the engine's per-subrequest count is a few
// instructions: 32 sub-buckets (the power of two at or above 2·10), half of them 16, and
// 496 counts up to shardMaxMicros. TestShardIndex checks them against shardLayout.
const (
	shardHalfMag = 4
	shardMask    = 1<<(shardHalfMag+1) - 1
	shardCounts  = 496
)

// shardIndex is shardLayout.index with the layout's constants.
func shardIndex(v int64) int {
	bucket := uint(64-bits.LeadingZeros64(uint64(v|shardMask))) - (shardHalfMag + 1)
	return int(bucket+1)<<shardHalfMag + int(v>>bucket) - 1<<shardHalfMag
}

func newHistLayout(digits int, highest int64) histLayout {
	// As hdrhistogram.New with a lowest value of 1 (unit magnitude 0): the sub-bucket
	// count is the power of two at or above 2·10^digits.
	largest := int64(2)
	for range digits {
		largest *= 10
	}
	mag := uint(bits.Len64(uint64(largest - 1))) // ceil(log2(largest))
	halfMag := max(mag, 1) - 1
	n := len(hdrhistogram.New(1, highest, digits).Export().Counts)
	return histLayout{digits: digits, max: highest, halfMag: halfMag, mask: 1<<(halfMag+1) - 1, half: 1 << halfMag, countsN: n}
}

// index is the counts index of value v (1 <= v <= l.max), as the library computes
// it: the bucket is the power of two above the sub-bucket range that v needs, the sub-bucket
// v shifted down by the bucket.
func (l *histLayout) index(v int64) int {
	bucket := uint(64-bits.LeadingZeros64(uint64(v|l.mask))) - (l.halfMag + 1)
	sub := int(v >> bucket)
	return int(bucket+1)<<l.halfMag + sub - l.half
}

// histogram returns a new HdrHistogram holding a copy of counts (nil for nil counts).
func (l *histLayout) histogram(counts []int64) *hdrhistogram.Histogram {
	if counts == nil {
		return nil
	}
	return hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: 1, HighestTrackableValue: l.max,
		SignificantFigures: int64(l.digits), Counts: counts})
}

// histWindowLag is how many windows a window's counts stay open after the current event
// has left it. A success is recorded at the time its answer reaches the client, which is
// never long before the event that records it; one that still arrives for a closed window
// goes into that window's histogram directly, so the lag bounds memory, not correctness.
const histWindowLag = 1

// countWindow counts latency us (microseconds) into stream st's window w.
func (r *recorder) countWindow(st *streamState, w int, us int64) {
	if w < r.histOpen {
		// The window is closed: its histogram is built already (or it had no counts).
		st.out.Win[w].Hist.record(us)
		return
	}
	c := st.winCounts[w]
	if c == nil {
		if n := len(r.histFree); n > 0 {
			c, r.histFree = r.histFree[n-1], r.histFree[:n-1]
		} else {
			c = make([]int64, windowLayout.countsN)
		}
		st.winCounts[w] = c
	}
	c[windowLayout.index(us)]++
}

// closeWindows builds the streams' histograms of the windows before end (at most the
// run's) and keeps their counts arrays for later windows.
func (r *recorder) closeWindows(streams []streamState, end int) {
	for ; r.histOpen < end; r.histOpen++ {
		w := r.histOpen
		for i := range streams {
			st := &streams[i]
			if c := st.winCounts[w]; c != nil {
				st.out.Win[w].Hist = compactHist(c)
				clear(c)
				r.histFree = append(r.histFree, c)
				st.winCounts[w] = nil
			}
		}
	}
}

// WindowHist is one window's latency histogram, in microseconds, kept compact: a window
// that closes keeps only the cells of the window layout's HdrHistogram counts array that
// are not zero, each as its index (high 16 bits) and its count (low 48 bits), in index
// order. A window of a few thousand requests fills a few hundred of the layout's 5,632
// cells, so this takes a tenth of the dense array's 44 KB or less. The zero value is an
// empty histogram. Its answers are the HdrHistogram's to the bit: ValueAtQuantile walks
// the same counts in the same order and maps the crossing cell to a value by the
// library's formulas (TestWindowHistMatchesHdrHistogram holds it to the library).
type WindowHist struct {
	cells []uint64
	total int64
}

const (
	cellCountBits = 48
	cellCountMask = 1<<cellCountBits - 1
)

// compactHist returns the histogram of a window's dense counts array.
func compactHist(counts []int64) WindowHist {
	n := 0
	for _, c := range counts {
		if c != 0 {
			n++
		}
	}
	h := WindowHist{cells: make([]uint64, 0, n)}
	for i, c := range counts {
		if c != 0 {
			h.cells = append(h.cells, uint64(i)<<cellCountBits|uint64(c))
			h.total += c
		}
	}
	return h
}

// record adds one value of us microseconds: a success that reached its client after its
// window closed, which is rare, so the insertion may allocate.
func (h *WindowHist) record(us int64) { h.RecordValues(us, 1) }

// RecordValues adds n values of us microseconds (clamped to the layout's 1 to 10^15), for
// histograms built outside a run; n must be positive.
func (h *WindowHist) RecordValues(us, n int64) {
	idx := uint64(windowLayout.index(min(max(us, 1), histMaxMicros)))
	i, _ := slices.BinarySearchFunc(h.cells, idx, func(c, idx uint64) int { return cmp.Compare(c>>cellCountBits, idx) })
	if i < len(h.cells) && h.cells[i]>>cellCountBits == idx {
		h.cells[i] += uint64(n)
	} else {
		h.cells = slices.Insert(h.cells, i, idx<<cellCountBits|uint64(n))
	}
	h.total += n
}

// TotalCount returns the number of values recorded.
func (h *WindowHist) TotalCount() int64 { return h.total }

// Cells returns the number of cells the histogram keeps, for memory accounting.
func (h *WindowHist) Cells() int { return len(h.cells) }

// ValueAtQuantile returns the value at percentile (0..100) as hdrhistogram's
// Histogram.ValueAtQuantile does: the highest value equivalent to the first cell at which
// the cumulative count reaches the percentile's rank (the lowest, for percentile 0), and 0
// for an empty histogram.
func (h *WindowHist) ValueAtQuantile(percentile float64) int64 {
	if h.total == 0 {
		return 0
	}
	percentile = min(max(percentile, 0), 100)
	// The rank, as the library computes it (percentileRank): in [1, total].
	rank := int64(1)
	if r := percentile/100*float64(h.total) + 0.5; r >= float64(h.total) {
		rank = h.total
	} else if r >= 1 {
		rank = int64(r)
	}
	var sum int64
	for _, c := range h.cells {
		if sum += int64(c & cellCountMask); sum >= rank {
			v, size := windowLayout.cellValue(int(c >> cellCountBits))
			if percentile == 0 {
				return v
			}
			return v + size - 1
		}
	}
	return 0
}

// Histogram returns a new HdrHistogram with the same counts (nil when empty), for readers
// that want the library's other statistics.
func (h *WindowHist) Histogram() *hdrhistogram.Histogram {
	if h.total == 0 {
		return nil
	}
	counts := make([]int64, windowLayout.countsN)
	for _, c := range h.cells {
		counts[c>>cellCountBits] = int64(c & cellCountMask)
	}
	return windowLayout.histogram(counts)
}

// cellValue returns the lowest value that counts index idx stands for and the size of the
// range of values equivalent to it, by the library's valueFromFlatIndex and
// sizeOfEquivalentValueRange with a unit magnitude of 0.
func (l *histLayout) cellValue(idx int) (lowest, size int64) {
	bucket := idx>>l.halfMag - 1
	sub := idx&(l.half-1) + l.half
	if bucket < 0 {
		sub -= l.half
		bucket = 0
	}
	lowest = int64(sub) << bucket
	if sub >= 2*l.half { // never for a value of this index; kept as the library has it
		bucket++
	}
	return lowest, 1 << bucket
}

// Merge adds o's counts to h, for readers that pool windows (a phase of a migration).
func (h *WindowHist) Merge(o *WindowHist) {
	for _, c := range o.cells {
		idx := c >> cellCountBits
		i, _ := slices.BinarySearchFunc(h.cells, idx, func(c, idx uint64) int { return cmp.Compare(c>>cellCountBits, idx) })
		if i < len(h.cells) && h.cells[i]>>cellCountBits == idx {
			h.cells[i] += c & cellCountMask
		} else {
			h.cells = slices.Insert(h.cells, i, c)
		}
	}
	h.total += o.total
}
