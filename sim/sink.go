package sim

// WindowSink receives the per-shard series of each window once the window has closed
// (Model.Sink): no later event can change them. Windows arrive in order, each exactly
// once, the last ones when the run ends. The slices of ShardWindow belong to the engine
// and are reused for the next window: a sink copies what it keeps.
type WindowSink interface {
	ShardWindow(w int, s *ShardWindow)
}

// ShardWindow is one window of the shard series, indexed by shard (the Result's
// ShardBusy, ShardOps and ShardMaxQueue at [w*len(Shards)+s]), with what turns them into
// loads (Result.ShardUtilization): Node is the node that served each shard at the end of
// the window (Result.ShardNodeAt) and Capacity the core time each node had in it
// (Result.NodeCapacity).
type ShardWindow struct {
	Busy     []Time
	Ops      []int64
	MaxQueue []int32
	Node     []int32
	Capacity []Time
	// Replicas is Result.Replicas: a shard's CPU is spread over 1 + Replicas copies.
	Replicas int
	// Span is the window's length within the time the run covered (Result.WindowSpan).
	Span Time
	// NodeBusy is the CPU time each node spent in the window (Result.NodeBusy), final
	// once the window has closed.
	NodeBusy []Time
}

// Utilization returns shard s's load in the window, as Result.ShardUtilization does.
func (s *ShardWindow) Utilization(sh int) float64 {
	c := s.Capacity[s.Node[sh]] * Time(1+s.Replicas)
	if c == 0 {
		return 0
	}
	return float64(s.Busy[sh]) / float64(c)
}

// sinkRing is the recorder's side of a window sink: the ring of open windows that replaces
// the shard series (their rows are the Result's ShardBusy, ShardOps and ShardMaxQueue,
// window w at row w&wMask), the last window handed over, and the buffers handed with it.
type sinkRing struct {
	sink     WindowSink
	ringN    int
	closedW  int // the last window handed to the sink
	sw       ShardWindow
	shardCap []Time // core time of each shard's node over the closed windows
	nodes    []Node // the model's nodes, whose cores the capacity of a window starts from
}

// ringStart is the number of windows the engine first holds for a sink: the current one
// and those a long service reaches into; it doubles when a service reaches further.
const ringStart = 4

// initSink sets up the ring of open windows that replaces the shard series for m's sink.
// growing: a Setting adds shards to the table during the run, which a sink cannot follow.
func (r *recorder) initSink(m *Model, growing bool) {
	if growing {
		panic("sim: a window sink cannot be combined with a Setting that adds shards to the table")
	}
	r.ring = &sinkRing{sink: m.Sink, closedW: -1, sw: ShardWindow{Node: make([]int32, len(r.res.Shards)), Capacity: make([]Time, len(r.res.Nodes))},
		shardCap: make([]Time, len(r.res.Shards)), nodes: m.Nodes}
	r.allocRing(ringStart)
}

func (r *recorder) allocRing(n int) {
	r.ring.ringN, r.wMask = n, n-1
	res, nS := r.res, len(r.res.Shards)
	res.ShardBusy = make([]Time, n*nS)
	res.ShardOps = make([]int64, n*nS)
	res.ShardMaxQueue = make([]int32, n*nS)
}

// growRing makes the ring hold window w, the furthest a service started in the current
// window reaches into. It is rare (a service longer than a few windows) and allocates.
func (r *recorder) growRing(w int) {
	res := r.res
	busy, ops, mq, oldMask := res.ShardBusy, res.ShardOps, res.ShardMaxQueue, r.wMask
	n := r.ring.ringN
	for w-(r.ring.closedW+1) >= n {
		n *= 2
	}
	r.allocRing(n)
	nS := len(res.Shards)
	for x := r.ring.closedW + 1; x <= r.ring.closedW+len(busy)/max(nS, 1); x++ {
		from, to := (x&oldMask)*nS, (x&r.wMask)*nS
		copy(res.ShardBusy[to:to+nS], busy[from:from+nS])
		copy(res.ShardOps[to:to+nS], ops[from:from+nS])
		copy(res.ShardMaxQueue[to:to+nS], mq[from:from+nS])
	}
}

// closeShardWindows hands the windows after the last closed one, up to end (excluded), to
// the sink. With the shards' queues, each shard's queue length is first carried into the
// window, as touchShardQueue would at its next change; nil: wrapUp has carried them
// already.
func (r *recorder) closeShardWindows(end int, queues *shardTable) {
	res := r.res
	nS, nN := len(res.Shards), len(res.Nodes)
	for x := r.ring.closedW + 1; x < end; x++ {
		if queues != nil {
			t := Time(x) * res.Window
			for sh := range nS {
				if queues.shardW[sh] < x {
					r.carry(t, res.ShardMaxQueue, nS, r.wMask, sh, &queues.shardW[sh], queues.shardQ[sh])
				}
			}
		}
		r.windowCapacity(x, r.ring.sw.Capacity)
		r.ring.sw.Span = res.WindowSpan(x)
		slot := (x & r.wMask) * nS
		sw := &r.ring.sw
		sw.Busy, sw.Ops, sw.MaxQueue = res.ShardBusy[slot:slot+nS], res.ShardOps[slot:slot+nS], res.ShardMaxQueue[slot:slot+nS]
		for sh := range nS {
			node := res.ShardNodeAt(sh, x)
			sw.Node[sh] = int32(node)
			res.Shards[sh].Ops += sw.Ops[sh]
			res.Shards[sh].Busy += sw.Busy[sh]
			r.ring.shardCap[sh] += sw.Capacity[node]
			if !r.trackNode {
				res.NodeBusy[x*nN+res.Shards[sh].Node] += sw.Busy[sh]
			}
		}
		sw.NodeBusy = res.NodeBusy[x*nN : (x+1)*nN]
		r.ring.sink.ShardWindow(x, sw)
		clear(sw.Busy)
		clear(sw.Ops)
		clear(sw.MaxQueue)
		r.ring.closedW = x
	}
}

// windowCapacity sets c[n] to the core time node n had in window w, as capacity does for
// Result.NodeCapacity.
func (r *recorder) windowCapacity(w int, c []Time) {
	res := r.res
	for n := range c {
		cores := Time(r.ring.nodes[n].Cores)
		t := Time(w) * res.Window
		end := t + res.WindowSpan(w)
		var sum Time
		for _, ch := range r.coreLog {
			if ch.node != n {
				continue
			}
			if ch.at >= end {
				break
			}
			if ch.at > t {
				sum += cores * (ch.at - t)
				t = ch.at
			}
			cores = Time(ch.cores)
		}
		c[n] = sum + cores*(end-t)
	}
}

// shardCells is the length of a shard series: every window's, or none when a sink takes
// them (initSink makes the ring).
func shardCells(m *Model, n int) int {
	if m.Sink != nil {
		return 0
	}
	return n
}
