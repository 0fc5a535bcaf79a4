package sim

import (
	"slices"

	"github.com/shardsim/shardsim/keyspace"
)

// recentKeys is how many of its latest keys each shard remembers, to split at their median.
const recentKeys = 64

// splits carries out Model.Split: it remembers each shard's recent
// keys and rows, checks the shards at the end of every window, splits through the model's
// Splitter, and moves new shards to their own node after the move delay.
type splits struct {
	e      *engine
	sp     *keyspace.Splitter
	pol    SplitPolicy
	recent [][]keyspace.Key
	seen   []int // keys seen per shard since its last split
	rows   []int64
	delay  Time
	buf    []keyspace.Key
}

func newSplits(e *engine, m *Model) *splits {
	s := &splits{e: e, sp: m.Splitter, recent: make([][]keyspace.Key, e.nShards), seen: make([]int, e.nShards),
		rows: make([]int64, e.nShards), buf: make([]keyspace.Key, 0, recentKeys)}
	if m.Split != nil {
		s.pol = *m.Split
		s.delay = m.Split.Move
	}
	return s
}

// observe remembers the key of a point request that visits one shard.
func (s *splits) observe(st *streamState) {
	if st.point == nil || len(st.visits) != 1 {
		return
	}
	sh := st.visits[0].Shard
	if s.recent[sh] == nil {
		s.recent[sh] = make([]keyspace.Key, recentKeys)
	}
	s.recent[sh][s.seen[sh]%recentKeys] = *st.point.LastKey()
	s.seen[sh]++
}

// windowEnd checks every shard at the end of window w (the first event after it is at t):
// a shard over the load or row threshold, or throttled in two windows running, splits.
func (s *splits) windowEnd(e *engine, t Time, w int) {
	if t >= e.m.Duration {
		return // the run is over: its last window changes nothing any more
	}
	live := s.sp.Live()
	span := e.res.WindowSpan(w)
	for sh := 0; sh < live; sh++ {
		var why SplitCause
		var value float64
		if s.pol.Load > 0 {
			node := &e.nodes[e.shardNode[sh]]
			load := float64(e.res.ShardBusy[w*e.nShards+sh]) / (float64(span) * float64(node.cores) * float64(1+e.m.Replicas))
			if load > s.pol.Load {
				why, value = SplitLoad, load
			}
		}
		if why == 0 && s.pol.Rows > 0 && s.rows[sh] >= s.pol.Rows {
			why, value = SplitRows, float64(s.rows[sh])
		}
		if n := e.throttleStreak(sh, w); why == 0 && s.pol.Throttled && n >= 2 {
			why, value = SplitThrottled, float64(n)
		}
		if why != 0 {
			s.split(t, sh, why, value)
		}
	}
}

// split splits shard sh at the median of its recent keys.
func (s *splits) split(t Time, sh int, why SplitCause, value float64) {
	e := s.e
	n := min(s.seen[sh], recentKeys)
	if n == 0 {
		return
	}
	s.buf = append(s.buf[:0], s.recent[sh][:n]...)
	ns, ok := s.sp.Split(sh, s.buf)
	if !ok {
		return
	}
	node := e.shardNode[sh]
	e.shardNode[ns] = node
	r := e.res
	r.Shards[ns].Node, r.Shards[ns].Home = int(node), int(node)
	r.Shards[ns].Parent, r.Shards[ns].Created = sh, t
	s.rows[ns] = s.rows[sh] / 2
	s.rows[sh] -= s.rows[ns]
	s.seen[sh], s.seen[ns] = 0, 0
	if sh < len(e.throttleRun) {
		e.throttleRun[sh] = 0
	}
	r.Events = append(r.Events, Event{At: t, Kind: EventSplit, Shard: sh, Child: ns, Cause: why, Value: value})
	e.h.pushKind(t+s.delay, int32(ns), evMove)
}

// move puts shard sh on the node with the least load in the last complete window (the
// current one at the start of the run), unless that is where it is.
func (s *splits) move(now Time, sh int) {
	e := s.e
	if now >= e.m.Duration {
		return
	}
	w := e.window(now)
	if w < 0 {
		w = e.res.Windows
	}
	w = max(w-1, 0)
	best, bestLoad := -1, 0.0
	for n := range e.nodes {
		load := float64(e.res.NodeBusy[w*e.nNodes+n]) / float64(e.nodes[n].cores)
		if best < 0 || load < bestLoad {
			best, bestLoad = n, load
		}
	}
	if int32(best) == e.shardNode[sh] {
		return
	}
	e.moveShard(now, sh, best)
}

// trim cuts the per-shard results to the shards that exist at the end of the run.
func (s *splits) trim() {
	e := s.e
	r := e.res
	live := s.sp.Live()
	if live == e.nShards {
		return
	}
	busy := make([]Time, 0, r.Windows*live)
	ops := make([]int64, 0, r.Windows*live)
	mq := make([]int32, 0, r.Windows*live)
	for w := 0; w < r.Windows; w++ {
		busy = append(busy, r.ShardBusy[w*e.nShards:w*e.nShards+live]...)
		ops = append(ops, r.ShardOps[w*e.nShards:w*e.nShards+live]...)
		mq = append(mq, r.ShardMaxQueue[w*e.nShards:w*e.nShards+live]...)
	}
	r.ShardBusy, r.ShardOps, r.ShardMaxQueue = busy, ops, mq
	r.Shards = slices.Clip(r.Shards[:live])
}

// handle moves a new shard to its own node.
func (s *splits) handle(_ *engine, ev event) { s.move(ev.at, int(ev.idx)) }

// wrapUp cuts the shard results to the shards that exist at the end.
func (s *splits) wrapUp(*engine) { s.trim() }
