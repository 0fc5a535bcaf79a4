package sim

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms record microseconds, from 1 µs to histMaxMicros (31.7 years, past the
// longest run: a latency longer than the run is one that waited while the engine drained its
// queues after the end); longer latencies are recorded as the maximum. The range used to
// end at 10^10 µs (2.8 hours), and every quantile of a run of hour-long requests stopped
// there while the mean went on. The per-shard subrequest histograms keep that range
// (shardMaxMicros): they are one per shard, and a 1-digit layout to 10^15 would add a
// kilobyte to each. The run-wide histogram keeps 3 significant digits (0.1% relative
// error); the per-window ones keep 2 (1%), which is what a windowed p99 needs and keeps a
// window's dense counts at 44 KB instead of 330 KB.
const (
	histMaxMicros    = 1_000_000_000_000_000
	shardMaxMicros   = 10_000_000_000
	histDigits       = 3
	windowHistDigits = 2
)

// Result is what one run recorded. Its slices are owned by the Result.
type Result struct {
	Duration Time
	Window   Time
	// Warmup is Model.Warmup: the requests issued before it are left out of the stream
	// totals, so a stream's rates are over Elapsed - Warmup.
	Warmup  Time
	Windows int
	// Elapsed is the simulated time the run covered: Duration, or less when it stopped early.
	Elapsed Time
	// Saturated reports that the backlog passed Model.MaxQueued at SaturatedAt with
	// Backlog subrequests waiting; the run stopped there.
	Saturated   bool
	SaturatedAt Time
	Backlog     int
	// Partial reports that Model.Stop ended the run at Elapsed.
	Partial bool
	// Decided reports that Model.Watch ended the run at Elapsed, its verdict settled.
	Decided bool
	// Cores is how many workers the run was split among (RunOn, parallel.go), and OneCore,
	// when a run that was offered several ran on one, why.
	Cores   int
	OneCore string
	Streams []StreamResult
	Shards  []ShardResult
	Nodes   []NodeResult
	// Per-window series, indexed [w*len(Shards)+s] and [w*len(Nodes)+n].
	ShardBusy     []Time  // CPU time spent serving the shard inside window w
	ShardOps      []int64 // subrequests whose service started inside window w
	ShardMaxQueue []int32 // most of the shard's subrequests waiting at once in window w
	NodeMaxQueue  []int32 // longest queue of the node in window w
	NodeBusy      []Time  // CPU time the node spent inside window w (all its shards and copies)
	// NodeCapacity is the core time node n had in window w, within the time the run
	// covered: cores × the window's span, unless an action changed its cores.
	NodeCapacity []Time
	// Replicas is the followers each shard has (Core.SetReplicas, mechanisms/replicas).
	Replicas int
	// Events are what changed during the run: operator actions, shard splits and moves.
	Events []Event
	// Streamed reports that a Model.Sink took the shard series: ShardBusy, ShardOps and
	// ShardMaxQueue are nil, and ShardCapacity[s] is the core time of shard s's node over
	// the run (the sum over windows of NodeCapacity at ShardNodeAt), for Utilization.
	Streamed      bool
	ShardCapacity []Time
	// Sink is Model.Sink, for the readers of a streamed run to find what it kept.
	Sink WindowSink
	// Reports are what the mechanisms report of their own (Core.Report), in the order they
	// reported it, each of a type that the figures know how to read (figures/metrics): a
	// migration's, a rebalance's, the global secondary indexes' layouts.
	Reports []any
	// Detail is Model.Detail with To cut at Duration (Window 0: none); each stream's Fine
	// holds its fine windows.
	Detail Detail
}

// EventKind is what changed during a run.
type EventKind uint8

// The kinds of event are what the core's figures know changed: an action the run's
// timeline notes, the shards growing by one that takes part of another's keys (the
// shards' lineage, ShardResult.Parent), a shard served by another node (Core.MoveShard).
// Why it changed is the words of the mechanism that changed it (Event.Text, Event.Why).
const (
	EventAction EventKind = iota // an operator action (mechanisms/operator, Core.Note)
	EventSplit                   // a shard split in two: a new one takes part of its keys (mechanisms/split, Core.Record)
	EventMove                    // a shard moved to another node (Core.MoveShard: a split's or a rebalance's)
)

func (k EventKind) String() string {
	switch k {
	case EventAction:
		return "action"
	case EventSplit:
		return "split"
	case EventMove:
		return "move"
	}
	return "?"
}

// Event is one change during a run, as data; the report words it, in Text's words where
// the event has them.
type Event struct {
	At    Time
	Kind  EventKind
	Shard int // the shard split or moved (-1 for actions)
	// A split: Child is the new shard, which takes the upper half of Shard's keys; Why and
	// Value say why, in the terms of the mechanism that split it (mechanisms/split's
	// Cause), and Text words it.
	Child int
	Why   uint8
	Value float64
	// A move: Node is the node Shard moved to.
	Node int
	// An action: Text is what the scenario says it does; a split: why it split.
	Text string
}

// ShardMove is a shard's move to Node at At.
type ShardMove struct {
	At   Time
	Node int
}

// KeyCount is a key's (or a partition's) share of a stream's requests, estimated by a
// bounded sketch: Count may overstate the truth by at most Error.
type KeyCount struct {
	// Values are the key's field values, in Stream.KeyFields order (hot keys), or the
	// partition key's parts (hot partitions).
	Values []uint64
	Count  int64
	Error  int64
	Shard  int // the shard that owned it when it was last counted
}

// KeyLatency is the latency of the sampled requests of one key.
type KeyLatency struct {
	Values  []uint64
	Samples int64
	Mean    Time
	Shard   int
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
	// RowsRead is the rows the stream's scans read over all issued requests, and
	// RowsModeled whether its planner has a row model (Stream.RowCost or a limit): without
	// one, RowsRead is 0 and means nothing.
	RowsRead    int64
	RowsModeled bool
	Win         []WindowLatency
	// Fine is the latencies of the completions in each window of Result.Detail, in
	// microseconds, by the time the answer reached the client as in Win (nil without a
	// detail range).
	Fine []WindowHist

	// Client and mitigation counts, over requests issued after the warmup.
	Attempts int64 // attempts sent, first ones included (Offered when nobody retries)
	Retries  int64 // attempts after the first
	TimedOut int64 // requests whose last attempt timed out
	Limited  int64 // requests rejected by the client's rate limit
	// Failed counts the requests whose last attempt failed for a cause a mechanism
	// registered (RegisterCause: a partition limit's throttle, a row lock's timeout), by
	// the cause.
	Failed CauseCounts

	// Detection looks at a random sample of the requests issued after the warmup
	// (SampledRequests of them; see Model.Detect): the keys requested most and, for writes,
	// the partitions written most, with their counts within the sample; the number of
	// distinct partitions the sampled writes went to (estimated, exact up to 4,096); and
	// the latencies of the sampled requests by key.
	HotKeys           []KeyCount
	HotPartitions     []KeyCount
	PartitionsWritten int64
	KeyLatencies      []KeyLatency
	SampledRequests   int64
	// PartitionsStopped says the partitions stopped being counted at PartitionsUntil,
	// when a migration changed how the stream plans (its writes at the start, every
	// stream at the cutover): the new layout's partitions are not in the variant's key
	// design. HotPartitions and PartitionsWritten then cover the PartitionsCounted
	// sampled requests issued before it, out of PartitionsOffered requests offered.
	PartitionsStopped bool
	PartitionsUntil   Time
	PartitionsCounted int64
	PartitionsOffered int64

	// Waits are the waits (before service, or after it for a commit flush) of the mechanisms
	// of Model.Mechanisms that held the stream's work back (waits.go), in the order they
	// were turned on.
	Waits []Wait

	// ShardRows are the rows the stream's writes added to each shard over the run (the
	// stream's part of ShardResult.Rows, followers' copies left out); nil for a stream
	// that does not write.
	ShardRows []int64
}

// WindowLatency is one window of a stream's latency series.
type WindowLatency struct {
	// Offered counts the requests issued in the window (by issue time, where the other
	// counts go by the time the answer reached the client).
	Offered   int64
	Completed int64
	Errors    int64 // rejected, limited, timed-out requests, and those Failed counts
	// Retries are the attempts after the first sent in the window.
	Retries  int64
	TimedOut int64
	Max      Time
	// Rejected found a node's queue full and Limited met the client's own rate limit (the
	// other causes of Errors; appended here after the first); Failed failed for a cause a
	// mechanism registered, by the cause.
	Rejected, Limited int64
	Failed            CauseCounts
	Hist              WindowHist // latencies of the completions, in microseconds
}

// ShardResult is one shard's totals over [0, Duration).
type ShardResult struct {
	Node int // where it ended the run
	Home int // where it started
	// Moves are the shard's moves to other nodes, in time order.
	Moves []ShardMove
	// Parent is the shard it was split from (-1 for the initial shards), at Created.
	Parent  int
	Created Time
	Ops     int64 // subrequests served
	Rows    int64 // rows written
	Busy    Time  // CPU time spent on the shard's subrequests
	// The shard's own view, over the subrequests that reached it at or after the warmup
	// (followers' applies left out): Rejected found its node's queue full, Failed failed
	// for a cause a mechanism registered (a partition limit's throttle, Core.Refuse; a
	// row lock's timeout, counted when it began waiting, Core.GiveUp), by the cause;
	// SubLatency counts the time of each one it served from its
	// arrival at the node to the end of its service (waiting and service: what the node's
	// slow-query log would show), in the layout SubLatencyQuantile reads: SubLatency[i]
	// is the count at index SubLatencyFrom+i, and a finished run keeps only the range from
	// the first count that is not zero to the last (compactSubLatency).
	Rejected       int64
	Failed         CauseCounts
	SubLatency     []uint32
	SubLatencyFrom int
}

// compactSubLatency replaces the shards' dense counts (2 KB a shard while the run counts)
// with the range of each that holds counts, copied into one array: a tenth of the memory
// or less at 100,000 shards, where the dense counts of three finished variants held 600 MB
// (docs/performance.md).
func compactSubLatency(shards []ShardResult) {
	bounds := make([][2]int, len(shards))
	n := 0
	for i := range shards {
		c := shards[i].SubLatency
		lo, hi := 0, len(c)
		for lo < hi && c[lo] == 0 {
			lo++
		}
		for hi > lo && c[hi-1] == 0 {
			hi--
		}
		bounds[i] = [2]int{lo, hi}
		n += hi - lo
	}
	all := make([]uint32, n)
	for i := range shards {
		lo, hi := bounds[i][0], bounds[i][1]
		k := copy(all, shards[i].SubLatency[lo:hi])
		shards[i].SubLatency, shards[i].SubLatencyFrom = all[:k:k], shards[i].SubLatencyFrom+lo
		all = all[k:]
	}
}

// shardLatShift: a shard's subrequest times are counted in units of 2^10 ns.
const shardLatShift = 10

// SubLatencyQuantile returns the time at quantile q (0..1) of the shard's subrequests at
// its node, from a histogram of 1 significant digit: the upper end of the bucket that
// holds it, within about 6% above the values in it (and so at most that far above the
// longest); ok is false when the shard served none after the warmup.
func (s *ShardResult) SubLatencyQuantile(q float64) (t Time, ok bool) {
	// As WindowHist.ValueAtQuantile, walking the dense counts in place: the value is the
	// one hdrhistogram.Import(...).ValueAtQuantile gives (TestSubLatencyQuantileMatchesLibrary),
	// without building a histogram per shard, which took most of the readers' time at
	// 100,000 shards (docs/performance.md).
	var n int64
	for _, c := range s.SubLatency {
		n += int64(c)
	}
	if n == 0 {
		return 0, false
	}
	percentile := min(max(100*q, 0), 100)
	rank := int64(1)
	if r := percentile/100*float64(n) + 0.5; r >= float64(n) {
		rank = n
	} else if r >= 1 {
		rank = int64(r)
	}
	var sum int64
	for i, c := range s.SubLatency {
		if sum += int64(c); sum >= rank {
			v, size := shardLayout.cellValue(s.SubLatencyFrom + i)
			if percentile != 0 {
				v += size - 1
			}
			return Time(v+1)<<shardLatShift - 1, true
		}
	}
	return 0, false
}

// NodeResult is one node's totals over [0, Duration).
type NodeResult struct {
	Cores    int // at the end of the run
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
	return float64(w.Hist.ValueAtQuantile(q*100)) / 1000
}

func histQuantileMillis(h *hdrhistogram.Histogram, q float64) float64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return float64(h.ValueAtQuantile(q*100)) / 1000
}

// WindowSpan returns the length of window w within the time the run covered: the last
// window may be shorter, and a run that stopped early (saturated or interrupted) covers
// nothing after Elapsed, so its later windows have no span and no capacity, and its loads
// are over the time it ran.
func (r *Result) WindowSpan(w int) Time {
	start := Time(w) * r.Window
	return max(0, min(r.Window, r.Elapsed-start))
}

// ShardUtilization returns shard s's load in window w as a fraction of the cores of the
// node that served it then, times its copies (1 + replicas): with followers, the CPU a
// shard costs is spread over its copies' nodes.
func (r *Result) ShardUtilization(w, s int) float64 {
	c := r.NodeCapacity[w*len(r.Nodes)+r.ShardNodeAt(s, w)] * Time(1+r.Replicas)
	if c == 0 {
		return 0
	}
	return float64(r.ShardBusy[w*len(r.Shards)+s]) / float64(c)
}

// ShardNodeAt returns the node that served shard s at the end of window w.
func (r *Result) ShardNodeAt(s, w int) int {
	sh := &r.Shards[s]
	n := sh.Home
	end := Time(w+1) * r.Window
	for _, m := range sh.Moves {
		if m.At < end {
			n = m.Node
		}
	}
	return n
}

// NodeUtilization returns node n's load in window w as a fraction of the cores it had.
func (r *Result) NodeUtilization(w, n int) float64 {
	c := r.NodeCapacity[w*len(r.Nodes)+n]
	if c == 0 {
		return 0
	}
	return float64(r.NodeBusy[w*len(r.Nodes)+n]) / float64(c)
}

// Utilization returns shard s's load over the time the run covered, as a fraction of its
// node's cores.
func (r *Result) Utilization(s int) float64 {
	var c Time
	if r.Streamed {
		c = r.ShardCapacity[s]
	}
	for w := 0; w < r.Windows && !r.Streamed; w++ {
		c += r.NodeCapacity[w*len(r.Nodes)+r.ShardNodeAt(s, w)]
	}
	if c == 0 {
		return 0
	}
	return float64(r.Shards[s].Busy) / (float64(c) * float64(1+r.Replicas))
}

// NodeLoad returns node n's utilization over the time the run covered.
func (r *Result) NodeLoad(n int) float64 {
	var c Time
	for w := 0; w < r.Windows; w++ {
		c += r.NodeCapacity[w*len(r.Nodes)+n]
	}
	if c == 0 {
		return 0
	}
	return float64(r.Nodes[n].Busy) / float64(c)
}

// newResult returns the Result a run of m fills, its series sized for nShards shard ids.
func newResult(m *Model, nShards int) *Result {
	nw, nNodes := m.Windows(), len(m.Nodes)
	return &Result{
		Duration:      m.Duration,
		Warmup:        m.Warmup,
		Window:        m.Window,
		Windows:       nw,
		Elapsed:       m.Duration,
		Streams:       make([]StreamResult, len(m.Streams)),
		Shards:        make([]ShardResult, nShards),
		Nodes:         make([]NodeResult, nNodes),
		ShardBusy:     make([]Time, shardCells(m, nw*nShards)),
		ShardOps:      make([]int64, shardCells(m, nw*nShards)),
		ShardMaxQueue: make([]int32, shardCells(m, nw*nShards)),
		NodeMaxQueue:  make([]int32, nw*nNodes),
		NodeBusy:      make([]Time, nw*nNodes),
		NodeCapacity:  make([]Time, nw*nNodes),
	}
}

// A migration's cutover (mechanisms/migrate) is a time or one of these.
const (
	// CutoverBackfill makes the cutover happen when the backfill is done.
	CutoverBackfill Time = -1
	// CutoverNever makes the migration a dry run: dual writes and the backfill, no cutover.
	CutoverNever Time = math.MaxInt64
)
