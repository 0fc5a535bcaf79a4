package sim

import (
	"math"
	"strconv"
)

// Rebalance adds nodes to the cluster during the run and moves shards onto them, one at a
// time, copying each shard's rows at a bandwidth (issue 21). An Action of kind AddNodes
// starts it: the nodes from First on join then (before it they have no cores and serve
// nothing), and the moves are planned at once:
//
//   - each move goes to the new node holding the fewest shards (the lowest id on a tie),
//     from the node with the highest load per core so far among those holding at least
//     two shards more than it; the shard that leaves is that node's busiest so far;
//     moves are planned until no node holds two shards more than a new one;
//   - a move copies the shard's rows (its share of HistoryRows, spread evenly over the
//     shards, plus the rows the run wrote to it) in batches of 10 ms at Rate rows per
//     second, each a read of ReadCost per row on the shard's node and a write of
//     WriteCost per row on the new node, queueing with the live traffic; the rows written
//     to the shard while it is copied are copied too (a catch-up), so a move ends when
//     the copy has caught up with the writes;
//   - until its copy is done the shard is served by its old node; then requests go to the
//     new one (an EventMove), and the next planned move starts (Parallel of them run at
//     once).
type Rebalance struct {
	// First is the first node that joins: Model.Nodes[First:] hold no shard at the start.
	First int
	// Rate is each move's copy rate in rows per second (above 0).
	Rate float64
	// MaxCPU, when positive, caps the copy's CPU on a node at this fraction of its cores:
	// the rate is lowered to MaxCPU x cores / max(ReadCost, WriteCost), with the fewest
	// cores of any node (the read and the write of a batch run on different nodes).
	MaxCPU float64
	// ReadCost and WriteCost are the CPU time of reading one row on the old node and of
	// writing it on the new one.
	ReadCost, WriteCost Time
	// HistoryRows are the rows the table held at t = 0, spread evenly over the shards.
	HistoryRows int64
	// Parallel is how many moves run at once, each copying at Rate (0 or 1: one at a
	// time): the planned moves are taken in order as moves end.
	Parallel int
}

// RebalanceResult is what a rebalance did. Times are since the start of the run; -1: not
// reached.
type RebalanceResult struct {
	// Start is when the nodes joined; Done when the last planned move was done.
	Start, Done Time
	// Rate is the copy rate applied: Rebalance.Rate, or the lower rate MaxCPU allows.
	Rate float64
	// Moves are the planned moves in order; a move not started or not done has -1 times.
	Moves []ShardCopy
	// CopyCPU is the CPU time of the copies' reads and writes; RowsCopied their rows.
	CopyCPU    Time
	RowsCopied int64
	// Copied holds the rows copied in each window.
	Copied []int64
}

// ShardCopy is one planned move of a rebalance.
type ShardCopy struct {
	Shard, From, To int
	// Rows are the rows the move copied (its history share, the rows written before it
	// started, and those written while it ran).
	Rows        int64
	Start, Done Time
}

// moveMark is the attempt number of a rebalance copy's subrequest (req followerReq), as
// backfillMark is a migration's: the two never share a run.
const moveMark = backfillMark

// rebState is the engine's rebalance state (nil when the model has none).
type rebState struct {
	m      *Rebalance
	res    *RebalanceResult
	next   int   // the next planned move to start (index in res.Moves)
	done   int   // moves done
	batch  int64 // rows of a full batch
	period Time  // time between two batches' issues at the rate
	slots  []moveSlot
}

// moveSlot is one move under way (Rebalance.Parallel of them at most).
type moveSlot struct {
	cur      int   // the move (index in res.Moves); -1: the slot is free
	issued   int64 // rows of the move handed to batches
	copied   int64 // rows of the move copied
	history  int64 // the shard's history rows
	inflight int
	ticking  bool // an evRebalance event for this slot is pending
}

// rebalanceDepth is how many batches of a move may be in flight at once.
const rebalanceDepth = 2

func newReb(m *Model) *rebState {
	g := m.Rebalance
	if !(g.Rate > 0) || g.First <= 0 || g.First >= len(m.Nodes) {
		panic("sim: invalid rebalance: a positive rate and at least one node joining after the first are required")
	}
	rate := g.Rate
	if c := max(g.ReadCost, g.WriteCost); g.MaxCPU > 0 && c > 0 {
		rate = min(rate, g.MaxCPU*float64(minCores(m))/c.Seconds())
	}
	rs := &rebState{m: g, res: &RebalanceResult{Start: -1, Done: -1, Rate: rate, Copied: make([]int64, m.Windows())},
		slots: make([]moveSlot, max(1, g.Parallel))}
	for k := range rs.slots {
		rs.slots[k].cur = -1
	}
	rs.batch = max(1, int64(math.Round(rate*backfillBatch.Seconds())))
	rs.period = copyPeriod(rs.batch, rate)
	return rs
}

// addNodes lets the new nodes join at now, plans the moves and starts the first.
func (e *engine) addNodes(now Time) {
	rs := e.reb
	if rs == nil || rs.res.Start >= 0 {
		return
	}
	rs.res.Start = now
	for n := rs.m.First; n < e.nNodes; n++ {
		e.nodes[n].cores = e.m.Nodes[n].Cores
		e.coreLog = append(e.coreLog, coreChange{at: now, node: n, cores: e.m.Nodes[n].Cores})
	}
	rs.plan(e, now)
	if len(rs.res.Moves) == 0 {
		e.rebalanceDone(now)
		return
	}
	for k := range rs.slots {
		e.nextMove(now, k)
	}
}

// plan fills res.Moves from the load each shard had so far (see Rebalance).
func (rs *rebState) plan(e *engine, now Time) {
	nS := len(e.m.ShardNode)
	busy := shardBusySoFar(e, now, nS)
	node := make([]int, nS)
	count := make([]int, e.nNodes)
	load := make([]float64, e.nNodes)
	for s := range nS {
		node[s] = int(e.shardNode[s])
		count[node[s]]++
		load[node[s]] += busy[s]
	}
	for {
		dest := rs.m.First
		for n := rs.m.First; n < e.nNodes; n++ {
			if count[n] < count[dest] {
				dest = n
			}
		}
		src := -1
		for n := range e.nNodes {
			if count[n] >= count[dest]+2 && (src < 0 || load[n]/float64(e.m.Nodes[n].Cores) > load[src]/float64(e.m.Nodes[src].Cores)) {
				src = n
			}
		}
		if src < 0 {
			return
		}
		sh := busiestOn(node, busy, src)
		node[sh] = dest
		count[src]--
		count[dest]++
		load[src] -= busy[sh]
		load[dest] += busy[sh]
		rs.res.Moves = append(rs.res.Moves, ShardCopy{Shard: sh, From: src, To: dest, Start: -1, Done: -1})
	}
}

// shardBusySoFar returns the CPU time each of the first nS shards had up to now's window
// (included).
func shardBusySoFar(e *engine, now Time, nS int) []float64 {
	busy := make([]float64, nS)
	last := min(e.window(now), e.res.Windows-1)
	if last < 0 {
		last = e.res.Windows - 1
	}
	first := 0
	if e.ring != nil {
		// The closed windows were handed to the sink, which added them to the totals; the
		// ring holds the open ones.
		for s := range nS {
			busy[s] = float64(e.res.Shards[s].Busy)
		}
		first = e.ring.closedW + 1
	}
	for w := first; w <= last; w++ {
		for s := range nS {
			busy[s] += float64(e.res.ShardBusy[(w&e.wMask)*e.nShards+s])
		}
	}
	return busy
}

// busiestOn returns the busiest shard that node[] places on node n (the lowest id on a
// tie).
func busiestOn(node []int, busy []float64, n int) int {
	sh := -1
	for s := range node {
		if node[s] == n && (sh < 0 || busy[s] > busy[sh]) {
			sh = s
		}
	}
	return sh
}

// nextMove starts the next planned move in slot k at now, if any is left.
func (e *engine) nextMove(now Time, k int) {
	rs := e.reb
	sl := &rs.slots[k]
	sl.cur = -1
	if rs.next >= len(rs.res.Moves) || now >= e.m.Duration {
		return
	}
	sl.cur = rs.next
	rs.next++
	mv := &rs.res.Moves[sl.cur]
	mv.Start = now
	sl.issued, sl.copied = 0, 0
	nS := int64(len(e.m.ShardNode))
	sl.history = rs.m.HistoryRows / nS
	if int64(mv.Shard) < rs.m.HistoryRows%nS {
		sl.history++
	}
	if !sl.ticking {
		sl.ticking = true
		e.h.pushKind(now, int32(k), evRebalance)
	}
}

// rebalanceDone records the end of the last move at now.
func (e *engine) rebalanceDone(now Time) {
	rs := e.reb
	if now >= e.m.Duration {
		return
	}
	rs.res.Done = now
	e.note(now, "rebalance done: "+strconv.Itoa(len(rs.res.Moves))+" shard moves, "+groupInt(rs.res.RowsCopied)+" rows copied")
}

// moveTarget is the rows slot k's move has to copy by now: its history share, and every
// row written to the shard so far (a write counts its row when it starts on its core, see
// start).
func (e *engine) moveTarget(k int) int64 {
	sl := &e.reb.slots[k]
	return sl.history + e.res.Shards[e.reb.res.Moves[sl.cur].Shard].Rows
}

// rebalanceTick issues slot k's next batch at now, unless rebalanceDepth batches of it
// are in flight, and schedules the one after.
func (e *engine) rebalanceTick(now Time, k int) {
	rs := e.reb
	sl := &rs.slots[k]
	sl.ticking = false
	if sl.cur < 0 || now >= e.m.Duration {
		return
	}
	left := e.moveTarget(k) - sl.issued
	if left <= 0 {
		if sl.inflight == 0 {
			e.moveDone(now, k)
		}
		return // the last batch's end finishes the move (copyEnd)
	}
	if sl.inflight >= 2*rebalanceDepth {
		return // the next batch end ticks again (copyEnd)
	}
	mv := &rs.res.Moves[sl.cur]
	b := min(rs.batch, left)
	sl.issued += b
	sl.inflight += 2
	for i, node := range [2]int{mv.From, mv.To} {
		c := rs.m.ReadCost
		if i == 1 {
			c = rs.m.WriteCost
		}
		si := e.subs.take()
		e.subs.items[si] = subreq{req: followerReq, shard: int32(mv.Shard), node: int16(node), parts: int32(b),
			service: c * Time(b), attempt: moveMark}
		if i == 0 {
			e.subs.items[si].parts = 0 // only the write counts rows copied
		}
		rs.res.CopyCPU += c * Time(b)
		e.reach(now, si)
	}
	sl.ticking = true
	e.h.pushKind(now+rs.period, int32(k), evRebalance)
}

// copyEnd handles the end of a copy subrequest of shard sh's move at now, and reports
// true; rows is what it carried (the batch's rows for its write, 0 for its read).
func (e *engine) copyEnd(now Time, sh int32, rows int32) bool {
	rs := e.reb
	k := 0
	for k < len(rs.slots) && (rs.slots[k].cur < 0 || rs.res.Moves[rs.slots[k].cur].Shard != int(sh)) {
		k++
	}
	if k == len(rs.slots) {
		return true // a copy whose move the run's end left behind
	}
	sl := &rs.slots[k]
	sl.inflight--
	if rows > 0 {
		sl.copied += int64(rows)
		rs.res.RowsCopied += int64(rows)
		if w := e.window(now); w >= 0 {
			rs.res.Copied[w] += int64(rows)
		}
	}
	target := e.moveTarget(k)
	if sl.inflight == 0 && sl.issued >= target {
		e.moveDone(now, k)
		return true
	}
	if !sl.ticking && sl.inflight < 2*rebalanceDepth && sl.issued < target {
		// A batch was due while the copy was at its depth, or the shard gained rows after
		// the last batch left: copy them now.
		sl.ticking = true
		e.h.pushKind(now, int32(k), evRebalance)
	}
	return true
}

// moveDone points slot k's shard at its new node at now and starts the next move.
func (e *engine) moveDone(now Time, k int) {
	rs := e.reb
	sl := &rs.slots[k]
	mv := &rs.res.Moves[sl.cur]
	if now >= e.m.Duration {
		return
	}
	mv.Done, mv.Rows = now, sl.copied
	e.moveShard(now, mv.Shard, mv.To)
	if rs.done++; rs.done == len(rs.res.Moves) {
		e.rebalanceDone(now)
	}
	e.nextMove(now, k)
}

// handle issues a move's next batch.
func (rs *rebState) handle(e *engine, ev event) { e.rebalanceTick(ev.at, int(ev.idx)) }

func (*rebState) windowEnd(*engine, Time, int) {}
func (*rebState) wrapUp(*engine)               {}
