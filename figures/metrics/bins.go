package metrics

import (
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Bins merges a run's windows into bins for a reader that cannot show every window (the
// HTML report, docs/architecture.md): Bin windows make a heat-map bin (N of them),
// ChartBin a time-chart bin (ChartN). A bin's load is the mean of its windows' loads
// (windows the run did not reach left out), its ops the sum, its queue the longest; a
// time-chart bin's rates are means, its p99 the largest of its windows' (a merged
// quantile would need the histograms, and the largest hides no climb).
type Bins struct {
	R                        *sim.Result
	Bin, ChartBin, N, ChartN int
}

// BinRow is one shard of a heat map (a group of shards, for a streamed run), as the HTML
// report's blob carries it. Node is where it ran; Nodes, when the shard moved, where it
// ran at the end of each bin.
type BinRow struct {
	Shard   int       `json:"shard"`
	Last    int       `json:"last,omitempty"` // a streamed run's row is shards Shard..Last
	Node    int       `json:"node"`
	Nodes   []int     `json:"nodes,omitempty"`
	Load    []float64 `json:"load"`
	Ops     []int64   `json:"ops"`
	Queue   []int32   `json:"queue"`
	RunLoad float64   `json:"run_load"`
	RunOps  int64     `json:"run_ops"`
}

// live reports whether the run reached window w: a run stopped early has no load after.
func (bn *Bins) live(w int) bool { return w < bn.R.Windows && bn.R.WindowSpan(w) > 0 }

// ShardRow is shard s's row of the heat map.
func (bn *Bins) ShardRow(s int) BinRow {
	r, nb := bn.R, bn.N
	row := BinRow{Shard: s, Node: r.Shards[s].Node, Load: make([]float64, nb), Ops: make([]int64, nb), Queue: make([]int32, nb)}
	if len(r.Shards[s].Moves) > 0 {
		row.Nodes = make([]int, nb)
	}
	for b := range nb {
		var load meanOf
		for w := b * bn.Bin; w < (b+1)*bn.Bin && w < r.Windows; w++ {
			i := w*len(r.Shards) + s
			row.Ops[b] += r.ShardOps[i]
			row.Queue[b] = max(row.Queue[b], r.ShardMaxQueue[i])
			if bn.live(w) {
				u := r.ShardUtilization(w, s)
				load.add(&u)
			}
			if row.Nodes != nil {
				row.Nodes[b] = r.ShardNodeAt(s, w)
			}
		}
		if load.n > 0 {
			row.Load[b] = Util(load.sum / float64(load.n))
		}
	}
	row.RunLoad, row.RunOps = Util(r.Utilization(s)), r.Shards[s].Ops
	return row
}

// StreamSeries is stream i's offered, completed and failed rates, p99 and retry rate in
// each time-chart bin; retries is nil for a stream that sent none.
func (bn *Bins) StreamSeries(i int) (offered, completed, failed, p99s, retries []*float64) {
	r := bn.R
	retried := RetriesOf(r, i).First >= 0
	for b := range bn.ChartN {
		var off, done, fail, retry, p99 meanOf
		for w := b * bn.ChartBin; w < (b+1)*bn.ChartBin && w < r.Windows; w++ {
			if !bn.live(w) {
				continue
			}
			sw := StreamWindowOf(r, i, w)
			off.add(sw.OfferedRate)
			done.add(sw.CompletedRate)
			fail.add(sw.FailedRate)
			retry.add(sw.RetryRate)
			p99.top(sw.P99)
		}
		offered = append(offered, off.mean(2))
		completed = append(completed, done.mean(2))
		failed = append(failed, fail.mean(2))
		p99s = append(p99s, p99.max(3))
		if retried {
			retries = append(retries, retry.mean(2))
		}
	}
	return offered, completed, failed, p99s, retries
}

// NodeLoad is node n's load in each time-chart bin.
func (bn *Bins) NodeLoad(n int) []*float64 {
	var load []*float64
	for b := range bn.ChartN {
		var l meanOf
		for w := b * bn.ChartBin; w < (b+1)*bn.ChartBin && w < bn.R.Windows; w++ {
			if bn.live(w) {
				u := bn.R.NodeUtilization(w, n)
				l.add(&u)
			}
		}
		load = append(load, l.mean(4))
	}
	return load
}

// HeatRows are a streamed run's heat rows: one per row of its digest's heat map, its
// bins of bin windows each merging bin/ColWindows of the map's columns (a load is the mean
// over the (shard, window) pairs the run reached, ops the sum, queue the longest). Node
// is the first shard's node; RunLoad and RunOps are the group's mean load and total ops.
func (bn *Bins) HeatRows(h *Heat) []BinRow {
	r, nb := bn.R, bn.N
	per := bn.Bin / h.ColWindows
	var rows []BinRow
	for i := range h.Rows {
		first, last := i*h.RowShards, min((i+1)*h.RowShards, len(r.Shards))-1
		row := BinRow{Shard: first, Node: r.Shards[first].Node, Load: make([]float64, nb), Ops: make([]int64, nb), Queue: make([]int32, nb)}
		if last > first {
			row.Last = last
		}
		for b := range nb {
			var sum float64
			var n int32
			for c := b * per; c < (b+1)*per && c < h.Cols; c++ {
				k := i*h.Cols + c
				row.Ops[b] += h.Ops[k]
				row.Queue[b] = max(row.Queue[b], h.Queue[k])
				sum += h.Sum[k]
				n += h.Live[k]
			}
			if n > 0 {
				row.Load[b] = Util(sum / float64(n))
			}
		}
		var load float64
		for s := first; s <= last; s++ {
			row.RunOps += r.Shards[s].Ops
			load += r.Utilization(s)
		}
		row.RunLoad = Util(load / float64(last-first+1))
		rows = append(rows, row)
	}
	return rows
}

// meanOf gathers optional values for a bin's mean or maximum.
type meanOf struct {
	sum, hi float64
	n       int
}

// add adds an optional value to the mean.
func (m *meanOf) add(p *float64) {
	if p != nil {
		m.sum += *p
		m.n++
	}
}

// top adds an optional value to the maximum.
func (m *meanOf) top(p *float64) {
	if p != nil {
		m.hi = max(m.hi, *p)
		m.n++
	}
}

// mean is the values' mean rounded to digits; nil for none.
func (m *meanOf) mean(digits int) *float64 {
	if m.n == 0 {
		return nil
	}
	x := units.Round(m.sum/float64(m.n), digits)
	return &x
}

// max is the largest value rounded to digits; nil for none.
func (m *meanOf) max(digits int) *float64 {
	if m.n == 0 {
		return nil
	}
	x := units.Round(m.hi, digits)
	return &x
}
