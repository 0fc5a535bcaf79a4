package metrics

import (
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/sim"
)

// Shard is one shard's figures over the time the run covered. Utilization is the CPU time
// spent on its subrequests as a fraction of its node's cores (0..1, see
// sim.Result.Utilization); Peak is the same in its busiest window.
type Shard struct {
	ID          int
	Node        int   // where it ended the run
	Ops         int64 // subrequests served
	Rows        int64 // rows written
	Utilization float64
	Peak        float64
	// P99 is the 99th percentile in ms of the time its subrequests spent at its node
	// (waiting and service, from the shard's 1-digit histogram: within about 6%); nil when it
	// served none after the warmup. Failures are the subrequests it refused after the
	// warmup: rejected by its node's full queue, throttled by its partition limit, or
	// failed waiting longer than lock_timeout for a row lock on it.
	P99      *float64
	Failures int64
	// Parent is the shard it was split from (-1 for none): a split hands a key to its
	// child, so the shard a key lived on earlier is up the chain.
	Parent int
}

// Node is one node's figures over the time the run covered; utilizations are fractions
// 0..1 of its cores.
type Node struct {
	ID          int
	Cores       int // at the end of the run
	Utilization float64
	Peak        float64
	PeakWindow  int // the window of Peak, the earliest on ties (0 when the run has none)
	MaxQueue    int // most requests waiting at once
	// Service is the mean service time in seconds of the subrequests its shards served
	// (0: none), and Settle the relaxation time of its queue at Utilization (Relaxation):
	// how long a run must last for the node's queue to reach its steady state.
	Service, Settle float64
}

// Hottest compares the largest of a set of loads (fractions 0..1 of cores) with the rest.
type Hottest struct {
	Index  int     // the hottest (the lowest index on ties; 0 when every load is 0)
	Load   float64 // its load
	Median float64 // the median load (the mean of the middle two for an even count)
	// MaxOverMedian is Load/Median: nil when the median is 0 under a working one (the ratio
	// is infinite), 1 when every load is 0.
	MaxOverMedian *float64
	// MaxOverMean is Load over the mean load (1: even); 0 when every load is 0.
	MaxOverMean float64
}

// Run is a run's figures.
type Run struct {
	Streams []Stream
	Shards  []Shard
	Nodes   []Node
	// Shard and Node compare the hottest shard and the hottest node with the others, over
	// the run.
	Shard, Node Hottest
	// PeakWindow is the window whose hottest shard is hottest (the earliest on ties), and
	// PeakShard compares the shards' loads in that window.
	PeakWindow int
	PeakShard  Hottest
	// PeakLoads are the shards' loads in PeakWindow (nil for a run without windows).
	PeakLoads []float64
	// Totals over every stream.
	Offered, Completed, Failed int64
	Failures                   Failures
	ErrorRate                  float64 // Failed / Offered over every stream and cause, 0..1; 0 when nothing was offered
	// Saturated: the backlog passed the engine's bound at SaturatedAt with Backlog
	// subrequests waiting, and the run stopped there. Partial: the run was interrupted.
	// Elapsed is the simulated time the figures cover.
	Saturated   bool
	SaturatedAt sim.Time
	Backlog     int
	Partial     bool
	// Decided: a capacity search stopped the run at Elapsed once its verdict was settled
	// (sim.Model.Watch); its figures are what it measured by then.
	Decided bool `json:",omitempty"`
	Elapsed sim.Time
	// Warmup is the start of the run the latency figures leave out (sim.Result.Warmup).
	Warmup sim.Time
	// Migrations are what the run's migrations did (docs/migrations.md); nil when none.
	Migrations []Migration
	// Rebalance is what the run's add_nodes action did; nil when none.
	Rebalance *Rebalance
	// Indexes are the run's global secondary indexes (index.go); nil when none.
	Indexes []Index
}

// Complete reports whether the run covered its whole duration: it neither saturated nor
// was interrupted.
func (r *Run) Complete() bool { return !r.Saturated && !r.Partial }

// Stream returns the figures of the stream named name, or nil.
func (r *Run) Stream(name string) *Stream {
	for i := range r.Streams {
		if r.Streams[i].Name == name {
			return &r.Streams[i]
		}
	}
	return nil
}

// Of derives a run's figures from its result. It reads r and keeps nothing of it.
func Of(r *sim.Result) *Run {
	m := &Run{Saturated: r.Saturated, SaturatedAt: r.SaturatedAt, Backlog: r.Backlog, Partial: r.Partial, Decided: r.Decided, Elapsed: r.Elapsed, Warmup: r.Warmup}
	m.Migrations = MigrationsOf(r)
	m.Rebalance = RebalanceOf(r)
	m.streams(r)
	d := DigestOf(r)
	shardLoads := m.shards(r, d)
	m.Indexes = IndexesOf(r, m.Shards)
	nodeLoads := m.nodes(r)
	m.Shard, m.Node = HottestOf(shardLoads), HottestOf(nodeLoads)
	m.PeakWindow = PeakWindow(r)
	for i := range shardLoads {
		if d != nil {
			shardLoads[i] = d.PeakLoads[i]
		} else {
			shardLoads[i] = r.ShardUtilization(m.PeakWindow, i)
		}
	}
	if r.Windows > 0 {
		m.PeakShard, m.PeakLoads = HottestOf(shardLoads), shardLoads
	}
	return m
}

// streams adds each stream's figures and the run's totals over them.
func (m *Run) streams(r *sim.Result) {
	for i := range r.Streams {
		s := StreamOf(r, i)
		if s.Locks != nil {
			s.Locks.lockLoad(&r.Streams[i], LockCountsOf(r, i), r.Elapsed-min(r.Warmup, r.Elapsed))
		}
		m.Offered += s.Offered
		m.Completed += s.Completed
		m.Failures.add(&s.Failures)
		m.Streams = append(m.Streams, s)
	}
	m.Failed = m.Failures.Total()
	m.ErrorRate = rate(m.Failed, m.Offered)
}

// shards adds each shard's figures, its peak from the digest d of a streamed run, and
// returns the shards' loads over the run.
func (m *Run) shards(r *sim.Result, d *ShardDigest) []float64 {
	loads := make([]float64, len(r.Shards))
	for i, sh := range r.Shards {
		peak := 0.0
		if d != nil {
			peak = d.Peak[i]
		}
		for w := 0; w < r.Windows && d == nil; w++ {
			peak = math.Max(peak, r.ShardUtilization(w, i))
		}
		loads[i] = r.Utilization(i)
		ms := Shard{ID: i, Node: sh.Node, Ops: sh.Ops, Rows: sh.Rows, Utilization: loads[i], Peak: peak,
			Failures: sh.Rejected + sh.Failed.Sum(), Parent: sh.Parent}
		if p99, ok := sh.SubLatencyQuantile(0.99); ok {
			ms.P99 = ptr(p99.Millis())
		}
		m.Shards = append(m.Shards, ms)
	}
	return loads
}

// nodes adds each node's figures, its busiest window and, when it served anything, its
// mean service time and relaxation time, and returns the nodes' loads over the run.
func (m *Run) nodes(r *sim.Result) []float64 {
	loads := make([]float64, len(r.Nodes))
	busy, ops := make([]sim.Time, len(r.Nodes)), make([]int64, len(r.Nodes))
	for i := range r.Shards {
		if n := r.Shards[i].Node; n >= 0 && n < len(r.Nodes) {
			busy[n] += r.Shards[i].Busy
			ops[n] += r.Shards[i].Ops
		}
	}
	for n, nd := range r.Nodes {
		peak, pw := 0.0, 0
		for w := 0; w < r.Windows; w++ {
			if u := r.NodeUtilization(w, n); u > peak {
				peak, pw = u, w
			}
		}
		loads[n] = r.NodeLoad(n)
		node := Node{ID: n, Cores: nd.Cores, Utilization: loads[n], Peak: peak, PeakWindow: pw, MaxQueue: nd.MaxQueue}
		if ops[n] > 0 {
			node.Service = busy[n].Seconds() / float64(ops[n])
			node.Settle = Relaxation(node.Utilization, node.Cores, node.Service)
		}
		m.Nodes = append(m.Nodes, node)
	}
	return loads
}

// HottestOf compares the largest of loads with the median and the mean. loads is not
// modified.
func HottestOf(loads []float64) Hottest {
	var h Hottest
	for i, l := range loads {
		if l > h.Load {
			h.Index, h.Load = i, l
		}
	}
	h.Median = Median(loads)
	switch {
	case h.Median > 0:
		h.MaxOverMedian = ptr(h.Load / h.Median)
	case h.Load == 0:
		h.MaxOverMedian = ptr(1)
	}
	if len(loads) > 0 {
		if mean := stat.Mean(loads, nil); mean > 0 {
			h.MaxOverMean = h.Load / mean
		}
	}
	return h
}

// Median returns the median of xs (the mean of the two middle values for an even count),
// or 0 for none; xs is not modified. It is detect's, which the sketches use too.
func Median(xs []float64) float64 { return detect.Median(xs) }

// PeakWindow returns the window whose hottest shard is hottest (the earliest on ties; 0
// when the run has no window).
func PeakWindow(r *sim.Result) int {
	if d := DigestOf(r); d != nil {
		return d.PeakWindow
	}
	best, bw := -1.0, 0
	for w := 0; w < r.Windows; w++ {
		for s := range r.Shards {
			if u := r.ShardUtilization(w, s); u > best {
				best, bw = u, w
			}
		}
	}
	return bw
}

// WindowQuantile returns a window's latency at quantile p (0..1) in milliseconds, capped at
// the window's exact maximum, or nil when nothing completed in the window.
func WindowQuantile(w *sim.WindowLatency, p float64) *float64 {
	if w.Hist.TotalCount() == 0 {
		return nil
	}
	return ptr(min(float64(w.Hist.ValueAtQuantile(p*100))/1000, w.Max.Millis()))
}

// ClusterLoads returns the cluster's load in each window (the CPU time of every node over
// their capacity) and over the run; ok is false when the nodes had no capacity.
func ClusterLoads(r *sim.Result) (load []float64, mean float64, ok bool) {
	nn := len(r.Nodes)
	load = make([]float64, r.Windows)
	var busy, capacity sim.Time
	for w := range load {
		var b, c sim.Time
		for n := 0; n < nn; n++ {
			b += r.NodeBusy[w*nn+n]
			c += r.NodeCapacity[w*nn+n]
		}
		if c > 0 {
			load[w] = float64(b) / float64(c)
		}
		busy, capacity = busy+b, capacity+c
	}
	if capacity == 0 {
		return load, 0, false
	}
	return load, float64(busy) / float64(capacity), true
}

// HottestNodeIn returns the node with the highest utilization in window w (the lowest id
// on ties) and its utilization; -1 and 0 when no node worked.
func HottestNodeIn(r *sim.Result, w int) (node int, load float64) {
	node = -1
	for n := range r.Nodes {
		if l := r.NodeUtilization(w, n); l > load {
			node, load = n, l
		}
	}
	return node, load
}

// CoresIn returns the cores node n had on average in window w (its capacity over the
// window's length, the last window cut at the end of the run): an operator action may
// resize a node within a window.
func CoresIn(r *sim.Result, w, n int) float64 {
	span := min(r.Window, r.Elapsed-sim.Time(w)*r.Window)
	if span <= 0 {
		span = r.Window
	}
	return float64(r.NodeCapacity[w*len(r.Nodes)+n]) / float64(span)
}
