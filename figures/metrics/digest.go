package metrics

import (
	"math"
	"slices"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/sim"
)

// ShardDigest is what a streamed run (sim.Model.Sink) keeps of its shard series for the
// readers: each shard's peak window load, every load of the peak window, per window the
// spread of the shards' loads, the windows in which a shard became hot or stopped being
// hot, each node's peak window with the shards that may make it hot by co-location, and a
// heat map binned to at most HeatRows x HeatCols cells. It takes memory in proportion to the shards plus the windows, never
// their product. It implements sim.WindowSink; a sink that also writes the series out
// calls its ShardWindow first.
type ShardDigest struct {
	// Peak is each shard's largest window load (Shard.Peak).
	Peak []float64
	// PeakWindow is the window whose hottest shard is hottest (the earliest on ties), and
	// PeakLoads every shard's load in it.
	PeakWindow int
	PeakLoads  []float64
	Windows    []WindowShards
	// Hot are the windows in which a shard's load crossed the hot-shard line (HotLoad and
	// HotRatio times the window's median shard), both ways, in time and shard order.
	Hot []HotChange
	// Heat is the binned heat map of the loads.
	Heat Heat
	// Per node: its peak window load and that window (as Node.Peak and Node.PeakWindow:
	// the earliest on ties, 0 when it never worked), and the shards it served then whose
	// load passed the co-location line (DigestLines.CoLoad and CoRatio), in id order.
	NodePeak       []float64
	NodePeakWindow []int
	NodeShards     [][]ShardLoad

	lines             DigestLines
	hotLoad, hotRatio float64
	best              float64
	hot, newPeak      []bool
	loads, sorted     []float64
}

// WindowShards is what a digest keeps of one window: the spread of its shards' loads,
// over every shard (Gini as detect.Gini, P50 and P95 as detect.Percentile).
type WindowShards struct {
	Max, Median, P50, P95, Gini float64
}

// ShardLoad is a shard's load in a window and the node that served it then.
type ShardLoad struct {
	Shard, Node int
	Load        float64
}

// HotChange is a shard becoming hot (Hot) or ceasing to be in window Window.
type HotChange struct {
	Window int
	ShardLoad
	Median float64
	Hot    bool
}

// Heat is a heat map of shard loads: Rows groups of RowShards shards in id order (the
// last one may be smaller) by Cols groups of ColWindows windows; a cell's Max is the
// largest load of its shards in its windows, Sum the sum of those loads over the Live
// (shard, window) pairs the run reached (MeanLoad), Ops the subrequests served and Queue
// the most waiting.
type Heat struct {
	Rows, Cols            int
	RowShards, ColWindows int
	Max, Sum              []float64 // [row*Cols+col]
	Live                  []int32
	Ops                   []int64
	Queue                 []int32
}

// HeatRows and HeatCols bound a digest's heat map.
const (
	HeatRows = 1000
	HeatCols = 1000
)

// DigestLines are the lines a digest judges loads by, as the report's detectors do: a
// shard is hot in a window when its load is above HotLoad and above HotRatio times the
// median shard's, and it counts toward its node's co-location in the node's peak window
// when its load is at least CoLoad and (unless the median is 0) CoRatio times the median.
// NoLines turns both off, for a reader that needs only Of's figures.
type DigestLines struct {
	HotLoad, HotRatio float64
	CoLoad, CoRatio   float64
}

// NoLines are lines no load passes: a digest with them records no hot changes and no
// co-location candidates.
var NoLines = DigestLines{HotLoad: math.Inf(1), CoLoad: math.Inf(1)}

// DigestSink is a window sink that keeps only a ShardDigest, made at the first window
// (whose series give the shards and nodes): what a sweep or a capacity search needs of a
// streamed run, since they read only Of's figures.
type DigestSink struct {
	Windows int
	Lines   DigestLines
	d       *ShardDigest
}

// ShardWindow takes window w's series (sim.WindowSink).
func (k *DigestSink) ShardWindow(w int, s *sim.ShardWindow) {
	if k.d == nil {
		k.d = NewShardDigest(len(s.Busy), len(s.Capacity), k.Windows, k.Lines)
	}
	k.d.ShardWindow(w, s)
}

// ShardDigest returns the digest (see DigestOf).
func (k *DigestSink) ShardDigest() *ShardDigest { return k.d }

// NewShardDigest returns a digest for shards shards on nodes nodes over windows windows.
func NewShardDigest(shards, nodes, windows int, lines DigestLines) *ShardDigest {
	d := &ShardDigest{Peak: make([]float64, shards), Windows: make([]WindowShards, 0, windows),
		lines: lines, hotLoad: lines.HotLoad, hotRatio: lines.HotRatio, best: -1, hot: make([]bool, shards),
		NodePeak: make([]float64, nodes), NodePeakWindow: make([]int, nodes), NodeShards: make([][]ShardLoad, nodes),
		newPeak: make([]bool, nodes),
		loads:   make([]float64, shards), sorted: make([]float64, shards)}
	h := &d.Heat
	h.RowShards = max(1, (shards+HeatRows-1)/HeatRows)
	h.ColWindows = max(1, (windows+HeatCols-1)/HeatCols)
	h.Rows = (shards + h.RowShards - 1) / h.RowShards
	h.Cols = (windows + h.ColWindows - 1) / h.ColWindows
	n := h.Rows * h.Cols
	h.Max, h.Sum, h.Live, h.Ops, h.Queue = make([]float64, n), make([]float64, n), make([]int32, n), make([]int64, n), make([]int32, n)
	return d
}

// ShardDigest returns d: a sink that wraps a digest has the same method, for DigestOf.
func (d *ShardDigest) ShardDigest() *ShardDigest { return d }

// DigestOf returns the digest of a streamed run, or nil when r keeps its shard series
// (or its sink kept no digest).
func DigestOf(r *sim.Result) *ShardDigest {
	if !r.Streamed {
		return nil
	}
	if h, ok := r.Sink.(interface{ ShardDigest() *ShardDigest }); ok {
		return h.ShardDigest()
	}
	return nil
}

// ShardWindow takes window w's series (sim.WindowSink).
func (d *ShardDigest) ShardWindow(w int, s *sim.ShardWindow) {
	loads := d.loads
	var ws WindowShards
	for sh := range loads {
		l := s.Utilization(sh)
		loads[sh] = l
		d.Peak[sh] = math.Max(d.Peak[sh], l)
	}
	copy(d.sorted, loads)
	slices.Sort(d.sorted)
	if n := len(d.sorted); n > 0 {
		ws.Max = d.sorted[n-1]
	}
	ws.Median = detect.MedianSorted(d.sorted)
	ws.P50 = detect.PercentileSorted(d.sorted, 0.5)
	ws.P95 = detect.PercentileSorted(d.sorted, 0.95)
	ws.Gini = detect.GiniSorted(d.sorted)
	if ws.Max > d.best {
		d.best, d.PeakWindow = ws.Max, w
		d.PeakLoads = append(d.PeakLoads[:0], loads...)
	}
	for sh, l := range loads {
		now := l > d.hotLoad && l > d.hotRatio*ws.Median
		if now != d.hot[sh] {
			d.hot[sh] = now
			d.Hot = append(d.Hot, HotChange{Window: w, ShardLoad: ShardLoad{Shard: sh, Node: int(s.Node[sh]), Load: l}, Median: ws.Median, Hot: now})
		}
	}
	d.Windows = append(d.Windows, ws)
	d.nodePeaks(w, s, ws.Median)
	h := &d.Heat
	col := w / h.ColWindows
	if col >= h.Cols {
		return
	}
	for sh, l := range loads {
		i := (sh/h.RowShards)*h.Cols + col
		h.Max[i] = math.Max(h.Max[i], l)
		h.Ops[i] += s.Ops[sh]
		h.Queue[i] = max(h.Queue[i], s.MaxQueue[sh])
		if s.Span > 0 {
			h.Sum[i] += l
			h.Live[i]++
		}
	}
}

// MeanLoad returns cell i's mean load, 0 when the run reached none of its windows.
func (h *Heat) MeanLoad(i int) float64 {
	if h.Live[i] == 0 {
		return 0
	}
	return h.Sum[i] / float64(h.Live[i])
}

// nodePeaks updates each node's peak with window w, and for the nodes whose peak it is,
// keeps the shards that passed the co-location line in it.
func (d *ShardDigest) nodePeaks(w int, s *sim.ShardWindow, med float64) {
	found := false
	for n, c := range s.Capacity {
		u := 0.0
		if c != 0 {
			u = float64(s.NodeBusy[n]) / float64(c)
		}
		d.newPeak[n] = u > d.NodePeak[n]
		if d.newPeak[n] {
			d.NodePeak[n], d.NodePeakWindow[n], d.NodeShards[n] = u, w, d.NodeShards[n][:0]
			found = true
		}
	}
	if !found {
		return
	}
	for sh, l := range d.loads {
		if n := s.Node[sh]; d.newPeak[n] && l >= d.lines.CoLoad && (med == 0 || l >= d.lines.CoRatio*med) {
			d.NodeShards[n] = append(d.NodeShards[n], ShardLoad{Shard: sh, Node: int(n), Load: l})
		}
	}
}
