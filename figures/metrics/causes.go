package metrics

import "github.com/shardsim/shardsim/sim"

// The figures diagnose's rules read beside Of's: splits in a row, a cache's backend reads
// at their peak, the copies under way in a window, and the shards a node held at its peak.

// SplitChain returns the longest run of splits each of the shard the previous one created,
// and the shard the run began with.
func SplitChain(r *sim.Result) (longest, first int) {
	chain, last := 0, -1
	for _, e := range r.Events {
		if e.Kind != sim.EventSplit {
			continue
		}
		if last >= 0 && e.Shard < len(r.Shards) && r.Shards[e.Shard].Parent == last {
			chain++
		} else {
			chain, first = 1, e.Shard
		}
		longest = max(longest, chain)
		last = e.Shard
	}
	return longest, first
}

// BackendPeak returns the most database reads stream i's cache misses sent in a window
// from window first on, that window, and their mean per window; ok is false when the
// stream has no window from first on.
func BackendPeak(r *sim.Result, i, first int) (peak int64, peakW int, mean float64, ok bool) {
	st := &r.Streams[i]
	if first >= len(st.Win) {
		return 0, 0, 0, false
	}
	var total int64
	peakW = first
	for w := first; w < len(st.Win); w++ {
		b := BackendReadsIn(r, i, w)
		total += b
		if b > peak {
			peak, peakW = b, w
		}
	}
	return peak, peakW, float64(total) / float64(len(st.Win)-first), true
}

// Copying is what copied rows of a shard during a window, whose work is charged to the
// shards it reads and writes: a rebalance's move of it (Move) or a migration's backfill.
type Copying struct {
	Move     *ShardCopy
	Backfill bool
}

// CopyingIn returns what copied shard s's rows during window w; the zero Copying when
// nothing did.
func CopyingIn(r *sim.Result, s, w int) Copying {
	from, to := sim.Time(w)*r.Window, sim.Time(w+1)*r.Window
	overlaps := func(start, done sim.Time) bool {
		return start >= 0 && start < to && (done < 0 || done > from)
	}
	if rb := RebalanceReport(r); rb != nil {
		for i := range rb.Moves {
			if mv := &rb.Moves[i]; mv.Shard == s && overlaps(mv.Start, mv.Done) {
				return Copying{Move: mv}
			}
		}
	}
	if g := MigrationReport(r); g != nil && overlaps(g.Start, g.BackfillDone) {
		return Copying{Backfill: true}
	}
	return Copying{}
}

// PeakShards finds, node by node, the shards on a node in its busiest window and their
// loads then (At). The median shard load of a window is the same for every node that
// peaks in it, and is taken once a window: a diagnosis asks for every busy node, and a
// median each was most of the time a run's summary took.
type PeakShards struct {
	r       *sim.Result
	loads   []float64
	medians map[int]float64 // by window
}

// NewPeakShards returns a PeakShards over r.
func NewPeakShards(r *sim.Result) *PeakShards {
	return &PeakShards{r: r, loads: make([]float64, len(r.Shards)), medians: map[int]float64{}}
}

// At returns the shards on node nd in its busiest window, every shard's load then (the
// slice is reused by the next call) and the median shard load. A streamed run kept, for
// each node's peak window, only the shards on it that pass its digest's co-location line
// (DigestLines); ok is false where its digest disagrees with nd's busiest window.
func (p *PeakShards) At(nd Node) (onNode []int, loads []float64, med float64, ok bool) {
	r, w, loads := p.r, nd.PeakWindow, p.loads
	if d := DigestOf(r); d != nil {
		if d.NodePeakWindow[nd.ID] != w {
			return nil, nil, 0, false // cannot be: the digest finds the peak as Of does
		}
		for _, t := range d.NodeShards[nd.ID] {
			loads[t.Shard] = t.Load
			onNode = append(onNode, t.Shard)
		}
		return onNode, loads, d.Windows[w].Median, true
	}
	for s := range loads {
		loads[s] = r.ShardUtilization(w, s)
		if r.ShardNodeAt(s, w) == nd.ID {
			onNode = append(onNode, s)
		}
	}
	med, ok = p.medians[w]
	if !ok {
		med = Median(loads)
		p.medians[w] = med
	}
	return onNode, loads, med, true
}
