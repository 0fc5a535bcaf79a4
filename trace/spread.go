package trace

// Per-window spread of a design's shard visits: what a cluster sees at a time, which the
// whole log's totals hide when the hot spot moves (a key that grows with time under a
// range scheme puts each window's writes on one shard, yet over the log every shard has
// had its turn).

// WindowSpread says how the visits of one kind (writes, or reads) fell on the shards
// window by window. The log is cut into windows of WindowS seconds from its start: a
// second, doubled until the windows that hold a visit hold on average at least
// spreadMinPerShard visits per shard (fewer visits than that make an even spread's
// hottest shard look hot by chance), and while the log outgrows the windows kept in
// memory.
type WindowSpread struct {
	WindowS float64 `json:"window_s"`
	// Windows is how many windows hold a visit of this kind.
	Windows int `json:"windows"`
	// The busiest window (the most visits of this kind; on a tie, the one whose hottest
	// shard takes the largest share, then the last) starts at
	// BusiestTS seconds; it holds BusiestVisits visits, of which its hottest shard,
	// BusiestShard, takes BusiestShare.
	BusiestTS     float64 `json:"busiest_t_s"`
	BusiestVisits int64   `json:"busiest_visits"`
	BusiestShard  int     `json:"busiest_shard"`
	BusiestShare  float64 `json:"busiest_share"`
	// MeanHottestShare is the mean over windows of each window's hottest shard's share,
	// weighted by the window's visits: the share of all visits that went to the hottest
	// shard of their window.
	MeanHottestShare float64 `json:"mean_hottest_share"`
}

// spreadMinPerShard is the mean visits per shard a window must hold (see WindowSpread).
const spreadMinPerShard = 50

// spreadCounters bounds the per-window, per-shard counters kept for one kind.
const spreadCounters = 1 << 20

// windowCounts counts visits per window and shard, in flat rows of shards counters.
type windowCounts struct {
	shards int
	width  int64 // ns
	maxWin int
	c      []int64
}

func newWindowCounts(shards int) *windowCounts {
	return &windowCounts{shards: shards, width: 1e9, maxWin: max(64, spreadCounters/max(shards, 1))}
}

func (w *windowCounts) windows() int { return len(w.c) / w.shards }

// merge doubles the window width, adding neighbouring windows.
func (w *windowCounts) merge() {
	n := w.windows()
	for i := 0; i < n; i += 2 {
		dst := w.c[i/2*w.shards : (i/2+1)*w.shards]
		copy(dst, w.c[i*w.shards:(i+1)*w.shards])
		if i+1 < n {
			for s, x := range w.c[(i+1)*w.shards : (i+2)*w.shards] {
				dst[s] += x
			}
		}
	}
	w.c = w.c[:(n+1)/2*w.shards]
	w.width *= 2
}

func (w *windowCounts) add(t int64, shard int) {
	for t/w.width >= int64(w.maxWin) {
		w.merge()
	}
	b := int(t / w.width)
	for w.windows() <= b {
		for range w.shards {
			w.c = append(w.c, 0)
		}
	}
	w.c[b*w.shards+shard]++
}

// spread widens the windows until they hold enough visits and describes them.
func (w *windowCounts) spread() WindowSpread {
	stats := func() (sp WindowSpread, total int64) {
		sp.WindowS = float64(w.width) / 1e9
		var hot int64
		for i := range w.windows() {
			row := w.c[i*w.shards : (i+1)*w.shards]
			var n, top int64
			shard := 0
			for s, x := range row {
				n += x
				if x > top {
					top, shard = x, s
				}
			}
			if n == 0 {
				continue
			}
			sp.Windows++
			total += n
			hot += top
			// On a tie the window whose hottest shard takes the most, then the last: on
			// a log of even rate the first window is no busier than the rest, and it is
			// where the range splits were cut from; the last is what the cluster sees
			// once the log has run (a key that grows with time has moved past the
			// splits to the last shard, one that falls to the first).
			if n > sp.BusiestVisits || n == sp.BusiestVisits && float64(top)/float64(n) >= sp.BusiestShare {
				sp.BusiestTS, sp.BusiestVisits, sp.BusiestShard = float64(int64(i)*w.width)/1e9, n, shard
				sp.BusiestShare = float64(top) / float64(n)
			}
		}
		sp.MeanHottestShare = ratio(hot, total)
		return sp, total
	}
	for {
		sp, total := stats()
		if sp.Windows <= 1 || total >= int64(spreadMinPerShard*w.shards*sp.Windows) {
			return sp
		}
		w.merge()
	}
}
