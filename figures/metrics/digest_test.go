package metrics

import (
	"testing"

	"github.com/shardsim/shardsim/sim"
)

// TestDigestBins feeds a digest 2,001 shards on one node over 1,001 windows by hand: shard
// s's load in window w is ((s + w) mod 10) / 100, except shard 7, which runs at 95% in
// windows 3 to 5. The heat map must group 3 shards by 2 windows (the last row holds shard
// 2,000 alone, the last column window 1,000 alone), each cell's max, mean, ops and queue
// must be its shards' and windows', and the peaks, the peak window and the hot changes
// must be the series' own.
func TestDigestBins(t *testing.T) {
	const shards, windows = 2001, 1001
	d := NewShardDigest(shards, 1, windows, DigestLines{HotLoad: 0.9, HotRatio: 3, CoLoad: 0.25, CoRatio: 2})
	load := func(s, w int) sim.Time {
		if s == 7 && w >= 3 && w <= 5 {
			return 95
		}
		return sim.Time((s + w) % 10)
	}
	sw := &sim.ShardWindow{Busy: make([]sim.Time, shards), Ops: make([]int64, shards), MaxQueue: make([]int32, shards),
		Node: make([]int32, shards), Capacity: []sim.Time{100}, NodeBusy: []sim.Time{0}, Span: 1}
	for w := range windows {
		for s := range shards {
			sw.Busy[s], sw.Ops[s], sw.MaxQueue[s] = load(s, w), int64(s), int32(w)
		}
		d.ShardWindow(w, sw)
	}
	h := &d.Heat
	if h.RowShards != 3 || h.Rows != 667 || h.ColWindows != 2 || h.Cols != 501 {
		t.Fatalf("heat map of %d rows of %d shards by %d columns of %d windows", h.Rows, h.RowShards, h.Cols, h.ColWindows)
	}
	for _, c := range []struct{ row, col int }{{0, 0}, {2, 1}, {666, 500}, {666, 3}, {2, 500}} {
		var most, sum float64
		var ops int64
		var q int32
		n := 0
		for s := c.row * 3; s < min(c.row*3+3, shards); s++ {
			for w := c.col * 2; w < min(c.col*2+2, windows); w++ {
				l := float64(load(s, w)) / 100
				most, sum, n = max(most, l), sum+l, n+1
				ops += int64(s)
				q = max(q, int32(w))
			}
		}
		i := c.row*h.Cols + c.col
		if h.Max[i] != most || h.MeanLoad(i) != sum/float64(n) || h.Ops[i] != ops || h.Queue[i] != q {
			t.Errorf("cell %v: max %v mean %v ops %d queue %d, want %v %v %d %d", c, h.Max[i], h.MeanLoad(i), h.Ops[i], h.Queue[i], most, sum/float64(n), ops, q)
		}
	}
	if d.PeakWindow != 3 || d.Peak[7] != 0.95 || d.Peak[8] != 0.09 || d.PeakLoads[7] != 0.95 || d.PeakLoads[8] != float64(load(8, 3))/100 {
		t.Errorf("peak window %d, shard 7's peak %v, shard 8's %v", d.PeakWindow, d.Peak[7], d.Peak[8])
	}
	// The median load of a window is 0.045 or so: 95% is hot from window 3 to window 5.
	if len(d.Hot) != 2 || d.Hot[0].Window != 3 || !d.Hot[0].Hot || d.Hot[0].Shard != 7 || d.Hot[1].Window != 6 || d.Hot[1].Hot {
		t.Errorf("hot changes %+v", d.Hot)
	}
}
