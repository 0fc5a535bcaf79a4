package sim

// shardTable is the shards' state, indexed by shard id (those a ShardGrower adds and a
// migration's new layout included): the node serving each, its waiting subrequests and its latency
// counts. The shard series of the Result are laid out by window (recorder.wMask).
type shardTable struct {
	nShards   int      // shard ids the result arrays hold (those a ShardGrower may add included)
	growing   bool     // a Setting adds shards to the table during the run (ShardGrower)
	table     int32    // the table's shard ids (splits, a migration's new layout): those after are the mechanisms' (ownNodes)
	ownNodes  []int    // the node of each shard a mechanism added (Core.AddShards), from id table on
	shardNode []int32  // the node serving each shard now
	shardQ    []int32  // subrequests of each shard waiting in its node's queue
	shardW    []int    // last window whose shard max queue is up to date
	shardLat  []uint32 // every shard's SubLatency counts, one after another
	// With a SubAdmit (a partition limit), by shard: the last window in which a subrequest
	// of it was throttled (-1: none), and the windows running, up to that one, in which one
	// was (Core.Refuse); nil without one.
	throttleWin, throttleRun []int
}

// throttledIn notes that shard sh had a subrequest throttled in window w (Core.Refuse):
// its run of throttled windows grows when w follows the last one, and starts anew when it
// does not.
func (t *shardTable) throttledIn(sh int32, w int) {
	if w < 0 || t.throttleWin[sh] == w {
		return
	}
	if t.throttleWin[sh] == w-1 {
		t.throttleRun[sh]++
	} else {
		t.throttleRun[sh] = 1
	}
	t.throttleWin[sh] = w
}

// throttleStreak is how many windows running, up to window w, shard sh has had a
// subrequest throttled in; 0 when none was in w.
func (t *shardTable) throttleStreak(sh, w int) int {
	if sh >= len(t.throttleWin) || t.throttleWin[sh] != w {
		return 0
	}
	return t.throttleRun[sh]
}

// grow gives the table the shard ids the Settings of m that add shards to it during the
// run may reach (ShardGrower); called by newEngine first, before the result arrays are
// sized.
func (t *shardTable) grow(m *Model) {
	for _, s := range m.Mechanisms {
		if g, ok := s.(ShardGrower); ok {
			t.growing = true
			t.nShards = max(t.nShards, g.MaxShards())
		}
	}
}

// init sizes the table for n shards, none of them placed yet.
func (t *shardTable) init(n int) {
	t.nShards = n
	t.shardNode = make([]int32, n)
	t.shardQ = make([]int32, n)
	t.shardW = make([]int, n)
	t.shardLat = make([]uint32, n*shardCounts)
}

// countShardLatency counts lat, the time a subrequest of shard sh spends at its node (its
// wait and its service, known once it starts), in the shard's histogram, in units of
// 1,024 ns (a shift, where microseconds would take a division on the hottest path; see
// ShardResult.SubLatencyQuantile). Kept small enough to inline.
func (t *shardTable) countShardLatency(sh int32, lat Time) {
	t.shardLat[int(sh)*shardCounts+shardIndex(min(int64(lat>>shardLatShift), shardMaxMicros))]++
}

// touchShardQueue is touchQueue for one shard's own waiting subrequests.
func (e *engine) touchShardQueue(now Time, sh int) {
	if now >= e.wStart && now < e.wEnd && e.touchW <= e.shardW[sh] {
		return
	}
	e.carry(now, e.res.ShardMaxQueue, e.nShards, e.wMask, sh, &e.shardW[sh], e.shardQ[sh])
}

// shardTotals sums the shard series into each shard's totals, or, with a sink, hands it
// the last windows (the sink's totals were taken as the windows closed); and compacts the
// shards' latency counts.
func (r *recorder) shardTotals() {
	res := r.res
	if r.ring != nil {
		r.closeShardWindows(res.Windows, nil)
		res.ShardBusy, res.ShardOps, res.ShardMaxQueue = nil, nil, nil
		res.ShardCapacity, res.Streamed, res.Sink = r.ring.shardCap, true, r.ring.sink
	} else {
		nS := len(res.Shards)
		for w := 0; w < res.Windows; w++ {
			for sh := range nS {
				res.Shards[sh].Ops += res.ShardOps[w*nS+sh]
				res.Shards[sh].Busy += res.ShardBusy[w*nS+sh]
			}
		}
	}
	compactSubLatency(res.Shards)
}

// moveShard makes node serve shard sh from now on, and records the move.
func (e *engine) moveShard(now Time, sh, node int) {
	e.shardNode[sh] = int32(node)
	r := e.res
	r.Shards[sh].Node = node
	r.Shards[sh].Moves = append(r.Shards[sh].Moves, ShardMove{At: now, Node: node})
	r.Events = append(r.Events, Event{At: now, Kind: EventMove, Shard: sh, Node: node})
}
