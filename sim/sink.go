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

// sinkRing is the engine's side of a window sink: the ring of open windows that replaces
// the shard series (their rows are the Result's ShardBusy, ShardOps and ShardMaxQueue,
// window w at row w&wMask), the last window handed over, and the buffers handed with it.
type sinkRing struct {
	sink     WindowSink
	ringN    int
	closedW  int // the last window handed to the sink
	sw       ShardWindow
	shardCap []Time // core time of each shard's node over the closed windows
}

// ringStart is the number of windows the engine first holds for a sink: the current one
// and those a long service reaches into; it doubles when a service reaches further.
const ringStart = 4

// initSink sets up the ring of open windows that replaces the shard series for a sink.
func (e *engine) initSink() {
	if e.growing {
		panic("sim: a window sink cannot be combined with a Setting that adds shards to the table")
	}
	e.ring = &sinkRing{sink: e.m.Sink, closedW: -1, sw: ShardWindow{Node: make([]int32, e.nShards), Capacity: make([]Time, e.nNodes)},
		shardCap: make([]Time, e.nShards)}
	e.allocRing(ringStart)
}

func (e *engine) allocRing(n int) {
	e.ring.ringN, e.wMask = n, n-1
	r := e.res
	r.ShardBusy = make([]Time, n*e.nShards)
	r.ShardOps = make([]int64, n*e.nShards)
	r.ShardMaxQueue = make([]int32, n*e.nShards)
}

// growRing makes the ring hold window w, the furthest a service started in the current
// window reaches into. It is rare (a service longer than a few windows) and allocates.
func (e *engine) growRing(w int) {
	r := e.res
	busy, ops, mq, oldMask := r.ShardBusy, r.ShardOps, r.ShardMaxQueue, e.wMask
	n := e.ring.ringN
	for w-(e.ring.closedW+1) >= n {
		n *= 2
	}
	e.allocRing(n)
	nS := e.nShards
	for x := e.ring.closedW + 1; x <= e.ring.closedW+len(busy)/max(nS, 1); x++ {
		from, to := (x&oldMask)*nS, (x&e.wMask)*nS
		copy(r.ShardBusy[to:to+nS], busy[from:from+nS])
		copy(r.ShardOps[to:to+nS], ops[from:from+nS])
		copy(r.ShardMaxQueue[to:to+nS], mq[from:from+nS])
	}
}

// closeShardWindows hands the windows after the last closed one, up to end (excluded), to
// the sink. With carry, each shard's queue length is first carried into the window, as
// touchShardQueue would at its next change; wrapUp has carried them already.
func (e *engine) closeShardWindows(end int, carry bool) {
	r := e.res
	nS := e.nShards
	for x := e.ring.closedW + 1; x < end; x++ {
		if carry {
			t := Time(x) * e.m.Window
			for sh := range nS {
				if e.shardW[sh] < x {
					e.carry(t, r.ShardMaxQueue, nS, e.wMask, sh, &e.shardW[sh], e.shardQ[sh])
				}
			}
		}
		e.windowCapacity(x, e.ring.sw.Capacity)
		e.ring.sw.Span = r.WindowSpan(x)
		slot := (x & e.wMask) * nS
		sw := &e.ring.sw
		sw.Busy, sw.Ops, sw.MaxQueue = r.ShardBusy[slot:slot+nS], r.ShardOps[slot:slot+nS], r.ShardMaxQueue[slot:slot+nS]
		for sh := range nS {
			node := r.ShardNodeAt(sh, x)
			sw.Node[sh] = int32(node)
			r.Shards[sh].Ops += sw.Ops[sh]
			r.Shards[sh].Busy += sw.Busy[sh]
			e.ring.shardCap[sh] += sw.Capacity[node]
			if !e.trackNode {
				r.NodeBusy[x*e.nNodes+r.Shards[sh].Node] += sw.Busy[sh]
			}
		}
		sw.NodeBusy = r.NodeBusy[x*e.nNodes : (x+1)*e.nNodes]
		e.ring.sink.ShardWindow(x, sw)
		clear(sw.Busy)
		clear(sw.Ops)
		clear(sw.MaxQueue)
		e.ring.closedW = x
	}
}

// windowCapacity sets c[n] to the core time node n had in window w, as capacity does for
// Result.NodeCapacity.
func (e *engine) windowCapacity(w int, c []Time) {
	r := e.res
	for n := range c {
		cores := Time(e.m.Nodes[n].Cores)
		t := Time(w) * r.Window
		end := t + r.WindowSpan(w)
		var sum Time
		for _, ch := range e.coreLog {
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
