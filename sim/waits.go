package sim

import "github.com/HdrHistogram/hdrhistogram-go"

// Wait is what one mechanism made a stream's requests (or their subrequests) wait before
// they were served, over those issued after the warmup: a connection pool's wait for a
// connection, a page latch's wait for a leaf page. Each mechanism of Model.Mechanisms that
// holds work back reports its waits here, and every output shows them as it shows the
// others (docs/detection.md, "Where it is in summary.json": streams[].waits).
type Wait struct {
	// Name is the mechanism's, as the outputs show it ("pool", "page_latch"); Of is what
	// waited ("requests", "writes").
	Name, Of string
	// Asked went through the mechanism; Queued of them found it busy and waited.
	Asked, Queued int64
	// Sum (nanoseconds, for an exact mean) and Max cover every wait, 0 for those that
	// went straight through; Hist holds them in microseconds.
	Sum  float64
	Max  Time
	Hist *hdrhistogram.Histogram
	// Uncapped: what is waited for serves every waiter at once (a group commit's flush), so
	// the share that waited is no load on it and it bounds no throughput; the bottleneck
	// does not name it (metrics.BottleneckOf).
	Uncapped bool
}

// WaitCounter gathers one mechanism's waits for one stream (a Wait) during a run: Core.NewWaits
// makes one.
type WaitCounter struct {
	out    *StreamResult
	slot   int // its index in out.Waits
	counts []int64
}

// newWaits starts counting mechanism name's waits of the work of the stream whose result
// is out (of: what waits). The mechanism calls it when it is turned on, once per stream it
// holds back.
func (r *recorder) newWaits(out *StreamResult, name, of string) *WaitCounter {
	out.Waits = append(out.Waits, Wait{Name: name, Of: of})
	w := &WaitCounter{out: out, slot: len(out.Waits) - 1, counts: make([]int64, runLayout.countsN)}
	r.waitCounters = append(r.waitCounters, w)
	return w
}

// Uncapped marks the wait as one for a resource that serves every waiter at once (Wait.Uncapped).
func (w *WaitCounter) Uncapped() { w.out.Waits[w.slot].Uncapped = true }

// Add counts one wait of length d (0: it went straight through), if counted (issued after
// the warmup).
func (w *WaitCounter) Add(counted bool, d Time) {
	if !counted {
		return
	}
	r := &w.out.Waits[w.slot]
	r.Asked++
	if d > 0 {
		r.Queued++
	}
	r.Sum += float64(d)
	r.Max = max(r.Max, d)
	us := min(int64((d+Microsecond-1)/Microsecond), histMaxMicros)
	w.counts[runLayout.index(us)]++
}

// wrapWaits puts every wait counter's histogram into its result, when the run ends.
func (r *recorder) wrapWaits() {
	for _, w := range r.waitCounters {
		w.out.Waits[w.slot].Hist = runLayout.histogram(w.counts)
		w.counts = nil
	}
}
