// Package rebalance is the rebalance (docs/migrations.md, "Adding nodes"; docs/mitigations.md):
// an add_nodes action lets nodes join the cluster during the run and moves shards onto them,
// one at a time or several at once, copying each shard's rows at a bandwidth. Its keys (an
// action's add_nodes and rebalance) are declared, checked and resolved in keys.go into
// scenario.RebalanceSpec, and compile builds its setting; its engine side is a sim.Setting that meets the engine
// through sim.Core: nodes that join later (JoinLater, Join), copy batches (CopyBy, Copy),
// each shard's load so far (ShardBusySoFar) and a shard's move (MoveShard).
package rebalance

import (
	"math"
	"strconv"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// Rebalance adds nodes to the cluster during the run and moves shards onto them, one at a
// time, copying each shard's rows at a bandwidth. At At (an add_nodes action's time, which
// the operator's setting notes, mechanisms/operator), the nodes from First on join (before it they have no cores and serve
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
//
// What it did it reports (sim.Core.Report) as a metrics.RebalanceResult.
type Rebalance struct {
	// At is when the nodes join: the add_nodes action's time.
	At sim.Time
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
	ReadCost, WriteCost sim.Time
	// HistoryRows are the rows the table held at t = 0, spread evenly over the shards.
	HistoryRows int64
	// Parallel is how many moves run at once, each copying at Rate (0 or 1: one at a
	// time): the planned moves are taken in order as moves end.
	Parallel int
}

// Note is "": explain says what a rebalance leaves out itself.
func (*Rebalance) Note() string { return "" }

// Waiter is 0: the copies queue at the nodes as subrequests do.
func (*Rebalance) Waiter() float64 { return 0 }

// Couples keeps a run with a rebalance on one engine.
func (*Rebalance) Couples() string { return "a rebalance moves shards between nodes" }

// evRebalance is the rebalance's event: idx k >= 0, slot k's move issues its next batch;
// evStart, the nodes join; evDone, the rebalance that planned no move is done.
var evRebalance = sim.NewEventKind()

const (
	evStart int32 = -1
	evDone  int32 = -2
)

// depth is how many batches of a move may be in flight at once.
const depth = 2

// state is a run's rebalance.
type state struct {
	m      *Rebalance
	res    *metrics.RebalanceResult
	next   int   // the next planned move to start (index in res.Moves)
	done   int   // moves done
	batch  int64 // rows of a full batch
	period sim.Time
	slots  []slot
}

// slot is one move under way (Rebalance.Parallel of them at most).
type slot struct {
	cur      int   // the move (index in res.Moves); -1: the slot is free
	issued   int64 // rows of the move handed to batches
	copied   int64 // rows of the move copied
	history  int64 // the shard's history rows
	inflight int
	ticking  bool // an evRebalance event for this slot is pending
}

// On sets the rebalance up in c: its nodes join later, its result is the Result's, and its
// start is scheduled at At.
func (g *Rebalance) On(c sim.Core) {
	if !(g.Rate > 0) || g.First <= 0 || g.First >= c.Nodes() {
		panic("rebalance: invalid rebalance: a positive rate and at least one node joining after the first are required")
	}
	if c.Shards() != c.TableIDs() || c.Replicas() > 0 {
		panic("rebalance: a rebalance moves the table's shards and cannot be combined with a mechanism's own shards or replicas")
	}
	rate := g.Rate
	if k := max(g.ReadCost, g.WriteCost); g.MaxCPU > 0 && k > 0 {
		cores := c.ModelCores(0)
		for n := range c.Nodes() {
			cores = min(cores, c.ModelCores(n))
		}
		rate = min(rate, g.MaxCPU*float64(cores)/k.Seconds())
	}
	s := &state{m: g, res: &metrics.RebalanceResult{Start: -1, Done: -1, Rate: rate, Copied: make([]int64, c.Result().Windows)},
		slots: make([]slot, max(1, g.Parallel))}
	for k := range s.slots {
		s.slots[k].cur = -1
	}
	s.batch = max(1, int64(math.Round(rate*sim.CopyBatch.Seconds())))
	s.period = sim.CopyPeriod(s.batch, rate)
	c.JoinLater(g.First)
	c.CopyBy(s)
	c.Report(s.res)
	c.Register(s, evRebalance)
	if g.At < c.Duration() {
		c.Schedule(g.At, evStart, evRebalance)
	}
}

// Handle starts the rebalance, ends one that planned no move, or issues slot idx's next
// batch.
func (s *state) Handle(c sim.Core, now sim.Time, idx int32) {
	switch idx {
	case evStart:
		s.start(c, now)
	case evDone:
		s.finish(c, now)
	default:
		s.tick(c, now, int(idx))
	}
}

// start lets the new nodes join at now, plans the moves and starts the first.
func (s *state) start(c sim.Core, now sim.Time) {
	if s.res.Start >= 0 {
		return
	}
	s.res.Start = now
	for n := s.m.First; n < c.Nodes(); n++ {
		c.Join(now, n)
	}
	s.plan(c, now)
	if len(s.res.Moves) == 0 {
		// Done after the action's own line, which the core notes at now.
		c.Schedule(now, evDone, evRebalance)
		return
	}
	for k := range s.slots {
		s.nextMove(c, now, k)
	}
}

// plan fills res.Moves from the load each shard had so far (see Rebalance).
func (s *state) plan(c sim.Core, now sim.Time) {
	nS, nN := c.TableShards(), c.Nodes()
	busy := c.ShardBusySoFar(now, nS)
	node := make([]int, nS)
	count := make([]int, nN)
	load := make([]float64, nN)
	for sh := range nS {
		node[sh] = c.ShardNode(sh)
		count[node[sh]]++
		load[node[sh]] += busy[sh]
	}
	for {
		dest := s.m.First
		for n := s.m.First; n < nN; n++ {
			if count[n] < count[dest] {
				dest = n
			}
		}
		src := -1
		for n := range nN {
			if count[n] >= count[dest]+2 && (src < 0 || load[n]/float64(c.ModelCores(n)) > load[src]/float64(c.ModelCores(src))) {
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
		s.res.Moves = append(s.res.Moves, metrics.ShardCopy{Shard: sh, From: src, To: dest, Start: -1, Done: -1})
	}
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
func (s *state) nextMove(c sim.Core, now sim.Time, k int) {
	sl := &s.slots[k]
	sl.cur = -1
	if s.next >= len(s.res.Moves) || now >= c.Duration() {
		return
	}
	sl.cur = s.next
	s.next++
	mv := &s.res.Moves[sl.cur]
	mv.Start = now
	sl.issued, sl.copied = 0, 0
	nS := int64(c.TableShards())
	sl.history = s.m.HistoryRows / nS
	if int64(mv.Shard) < s.m.HistoryRows%nS {
		sl.history++
	}
	if !sl.ticking {
		sl.ticking = true
		c.Schedule(now, int32(k), evRebalance)
	}
}

// finish records the end of the last move at now.
func (s *state) finish(c sim.Core, now sim.Time) {
	if now >= c.Duration() {
		return
	}
	s.res.Done = now
	c.Note(now, "rebalance done: "+strconv.Itoa(len(s.res.Moves))+" shard moves, "+groupInt(s.res.RowsCopied)+" rows copied")
}

// target is the rows slot k's move has to copy by now: its history share, and every row
// written to the shard so far (a write counts its row when it starts on its core).
func (s *state) target(c sim.Core, k int) int64 {
	sl := &s.slots[k]
	return sl.history + c.Result().Shards[s.res.Moves[sl.cur].Shard].Rows
}

// tick issues slot k's next batch at now, unless depth batches of it are in flight, and
// schedules the one after.
func (s *state) tick(c sim.Core, now sim.Time, k int) {
	sl := &s.slots[k]
	sl.ticking = false
	if sl.cur < 0 || now >= c.Duration() {
		return
	}
	left := s.target(c, k) - sl.issued
	if left <= 0 {
		if sl.inflight == 0 {
			s.moveDone(c, now, k)
		}
		return // the last batch's end finishes the move (Copied)
	}
	if sl.inflight >= 2*depth {
		return // the next batch end ticks again (Copied)
	}
	mv := &s.res.Moves[sl.cur]
	b := min(s.batch, left)
	sl.issued += b
	sl.inflight += 2
	read, write := s.m.ReadCost*sim.Time(b), s.m.WriteCost*sim.Time(b)
	s.res.CopyCPU += read
	c.Copy(now, mv.Shard, mv.From, 0, read) // only the write counts rows copied
	s.res.CopyCPU += write
	c.Copy(now, mv.Shard, mv.To, int32(b), write)
	sl.ticking = true
	c.Schedule(now+s.period, int32(k), evRebalance)
}

// Copied handles the end of a copy batch of shard sh's move at now; rows is what it
// carried (the batch's rows for its write, 0 for its read).
func (s *state) Copied(c sim.Core, now sim.Time, sh int, rows int32) {
	k := 0
	for k < len(s.slots) && (s.slots[k].cur < 0 || s.res.Moves[s.slots[k].cur].Shard != sh) {
		k++
	}
	if k == len(s.slots) {
		return // a copy whose move the run's end left behind
	}
	sl := &s.slots[k]
	sl.inflight--
	if rows > 0 {
		sl.copied += int64(rows)
		s.res.RowsCopied += int64(rows)
		if w := c.Window(now); w >= 0 {
			s.res.Copied[w] += int64(rows)
		}
	}
	target := s.target(c, k)
	if sl.inflight == 0 && sl.issued >= target {
		s.moveDone(c, now, k)
		return
	}
	if !sl.ticking && sl.inflight < 2*depth && sl.issued < target {
		// A batch was due while the copy was at its depth, or the shard gained rows after
		// the last batch left: copy them now.
		sl.ticking = true
		c.Schedule(now, int32(k), evRebalance)
	}
}

// moveDone points slot k's shard at its new node at now and starts the next move.
func (s *state) moveDone(c sim.Core, now sim.Time, k int) {
	sl := &s.slots[k]
	mv := &s.res.Moves[sl.cur]
	if now >= c.Duration() {
		return
	}
	mv.Done, mv.Rows = now, sl.copied
	c.MoveShard(now, mv.Shard, mv.To)
	if s.done++; s.done == len(s.res.Moves) {
		s.finish(c, now)
	}
	s.nextMove(c, now, k)
}

// groupInt writes n with thousands separators: 1,234,567.
func groupInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var (
	_ sim.Setting  = (*Rebalance)(nil)
	_ sim.Coupling = (*Rebalance)(nil)
	_ sim.Copier   = (*state)(nil)
	_ sim.Handler  = (*state)(nil)
)
