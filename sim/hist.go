package sim

import (
	"math/bits"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// histLayout is the bucket layout of an HdrHistogram of microseconds from 1 to
// histMaxMicros with a given number of significant digits. The engine counts latencies
// into plain arrays of that layout, one increment per request, and hands them to
// hdrhistogram.Import once a window (or the run) is over: the histograms are exactly those
// RecordValue would have built, without a call, an error check and a total per request.
type histLayout struct {
	digits  int
	halfMag uint  // log2 of half the sub-bucket count
	mask    int64 // sub-bucket count - 1: values below it fall in bucket 0
	half    int   // half the sub-bucket count
	countsN int   // length of the counts array
}

// The layouts of the run-wide and the per-window histograms.
var (
	runLayout    = newHistLayout(histDigits)
	windowLayout = newHistLayout(windowHistDigits)
	// shardLayout is the per-shard subrequest histograms': 1 digit, ~470 counts.
	shardLayout = newHistLayout(1)
)

func newHistLayout(digits int) histLayout {
	// As hdrhistogram.New with a lowest value of 1 (unit magnitude 0): the sub-bucket
	// count is the power of two at or above 2·10^digits.
	largest := int64(2)
	for range digits {
		largest *= 10
	}
	mag := uint(bits.Len64(uint64(largest - 1))) // ceil(log2(largest))
	halfMag := max(mag, 1) - 1
	n := len(hdrhistogram.New(1, histMaxMicros, digits).Export().Counts)
	return histLayout{digits: digits, halfMag: halfMag, mask: 1<<(halfMag+1) - 1, half: 1 << halfMag, countsN: n}
}

// index is the counts index of value v (1 <= v <= histMaxMicros), as the library computes
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
	return hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: 1, HighestTrackableValue: histMaxMicros,
		SignificantFigures: int64(l.digits), Counts: counts})
}

// histWindowLag is how many windows a window's counts stay open after the current event
// has left it. A success is recorded at the time its answer reaches the client, which is
// never long before the event that records it; one that still arrives for a closed window
// goes into that window's histogram directly, so the lag bounds memory, not correctness.
const histWindowLag = 1

// countWindow counts latency us (microseconds) into stream st's window w.
func (e *engine) countWindow(st *streamState, w int, us int64) {
	if w < e.histOpen {
		// The window is closed: its histogram is built already (or it had no counts).
		win := &st.out.Win[w]
		if win.Hist == nil {
			win.Hist = hdrhistogram.New(1, histMaxMicros, windowHistDigits)
		}
		win.Hist.RecordValue(us)
		return
	}
	c := st.winCounts[w]
	if c == nil {
		if n := len(e.histFree); n > 0 {
			c, e.histFree = e.histFree[n-1], e.histFree[:n-1]
		} else {
			c = make([]int64, windowLayout.countsN)
		}
		st.winCounts[w] = c
	}
	c[windowLayout.index(us)]++
}

// closeWindows builds the histograms of the windows before end (at most the run's) and
// keeps their counts arrays for later windows.
func (e *engine) closeWindows(end int) {
	for ; e.histOpen < end; e.histOpen++ {
		w := e.histOpen
		for i := range e.streams {
			st := &e.streams[i]
			if c := st.winCounts[w]; c != nil {
				st.out.Win[w].Hist = windowLayout.histogram(c)
				clear(c)
				e.histFree = append(e.histFree, c)
				st.winCounts[w] = nil
			}
		}
	}
}
