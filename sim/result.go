package sim

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms record microseconds, from 1 µs to histMaxMicros (about 2.8 hours);
// longer latencies are recorded as the maximum. The run-wide histogram keeps 3 significant
// digits (0.1% relative error); the per-window ones keep 2 (1%), which is what a windowed
// p99 needs and keeps a window's histogram near 28 KB instead of 200 KB.
const (
	histMaxMicros    = 10_000_000_000
	histDigits       = 3
	windowHistDigits = 2
)

// Result is what one run recorded. Its slices are owned by the Result.
type Result struct {
	Duration Time
	Window   Time
	Windows  int
	// Elapsed is the simulated time the run covered: Duration, or less when it stopped early.
	Elapsed Time
	// Saturated reports that the backlog passed Model.MaxQueued at SaturatedAt with
	// Backlog subrequests waiting; the run stopped there.
	Saturated   bool
	SaturatedAt Time
	Backlog     int
	// Partial reports that Model.Stop ended the run at Elapsed.
	Partial bool
	Streams []StreamResult
	Shards  []ShardResult
	Nodes   []NodeResult
	// Per-window series, indexed [w*len(Shards)+s] and [w*len(Nodes)+n].
	ShardBusy     []Time  // CPU time spent serving the shard inside window w
	ShardOps      []int64 // subrequests whose service started inside window w
	ShardMaxQueue []int32 // most of the shard's subrequests waiting at once in window w
	NodeMaxQueue  []int32 // longest queue of the node in window w
}

// StreamResult is one stream's counts and latencies. Counts and the run-wide latency
// statistics cover requests issued at or after the warmup; the per-window series cover
// every request, placed in the window in which its response reached the client.
type StreamResult struct {
	Name      string
	Op        Op
	Offered   int64 // requests issued
	Completed int64 // requests that succeeded
	Rejected  int64 // requests of which a subrequest found its node's queue full
	// Latency holds the latencies of completed requests, in microseconds.
	Latency    *hdrhistogram.Histogram
	LatencySum float64 // nanoseconds, for an exact mean
	LatencyMax Time
	// Fan-out: subrequests and partitions over all issued requests, and the largest fan-out.
	Subrequests int64
	Partitions  int64
	MaxFanout   int
	Win         []WindowLatency
}

// WindowLatency is one window of a stream's latency series.
type WindowLatency struct {
	Completed int64
	Errors    int64
	Max       Time
	Hist      *hdrhistogram.Histogram // microseconds; nil when nothing completed
}

// ShardResult is one shard's totals over [0, Duration).
type ShardResult struct {
	Node int
	Ops  int64 // subrequests served
	Rows int64 // rows written
	Busy Time  // CPU time spent on the shard's subrequests
}

// NodeResult is one node's totals over [0, Duration).
type NodeResult struct {
	Cores    int
	Busy     Time
	MaxQueue int
}

// MeanMillis returns the exact mean latency of the stream's completed requests in ms.
func (s *StreamResult) MeanMillis() float64 {
	if s.Latency.TotalCount() == 0 {
		return 0
	}
	return s.LatencySum / float64(s.Latency.TotalCount()) / float64(Millisecond)
}

// QuantileMillis returns the latency at quantile q (0..1) of completed requests in ms.
func (s *StreamResult) QuantileMillis(q float64) float64 {
	return histQuantileMillis(s.Latency, q)
}

// QuantileMillis returns the window's latency at quantile q (0..1) in ms, 0 if empty.
func (w *WindowLatency) QuantileMillis(q float64) float64 {
	return histQuantileMillis(w.Hist, q)
}

func histQuantileMillis(h *hdrhistogram.Histogram, q float64) float64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return float64(h.ValueAtQuantile(q*100)) / 1000
}

// WindowSpan returns the length of window w; the last window may be shorter.
func (r *Result) WindowSpan(w int) Time {
	start := Time(w) * r.Window
	return min(r.Window, r.Duration-start)
}

// ShardUtilization returns shard s's load in window w as a fraction of its node's cores.
func (r *Result) ShardUtilization(w, s int) float64 {
	cores := r.Nodes[r.Shards[s].Node].Cores
	return float64(r.ShardBusy[w*len(r.Shards)+s]) / (float64(r.WindowSpan(w)) * float64(cores))
}

// NodeUtilization returns node n's load in window w as a fraction of its cores: the sum of
// its shards' loads.
func (r *Result) NodeUtilization(w, n int) float64 {
	var busy Time
	for s := range r.Shards {
		if r.Shards[s].Node == n {
			busy += r.ShardBusy[w*len(r.Shards)+s]
		}
	}
	return float64(busy) / (float64(r.WindowSpan(w)) * float64(r.Nodes[n].Cores))
}

// Utilization returns shard s's load over the time the run covered, as a fraction of its
// node's cores.
func (r *Result) Utilization(s int) float64 {
	sh := r.Shards[s]
	return float64(sh.Busy) / (float64(r.Elapsed) * float64(r.Nodes[sh.Node].Cores))
}

// NodeLoad returns node n's utilization over the time the run covered.
func (r *Result) NodeLoad(n int) float64 {
	return float64(r.Nodes[n].Busy) / (float64(r.Elapsed) * float64(r.Nodes[n].Cores))
}
