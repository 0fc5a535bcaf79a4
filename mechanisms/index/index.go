// Package index is the table's global secondary indexes (docs/mitigations.md, "Global
// secondary indexes"): a second layout of the table's rows, with its own key design,
// scheme and shards, whose shard ids follow the table's. Every write of the table writes
// each index as well: with a synchronous index the write's request visits the table's
// shard and the index's, and completes when both have served it (a fork-join, the request
// path's ordinary several visits); with an asynchronous one the index's subrequest, once
// admitted at its node, is detached from the request and served as nobody waits for it, as
// a follower's apply. Admission is where an index pushes back: an index partition whose
// limit has no units left throttles the write, and a full queue on its node rejects it, so
// that the table's write fails (DynamoDB throttles base-table writes when a global
// secondary index lacks write capacity). Reads and scans routed over an index go to its
// shards by its key design.
//
// Its keys ([[indexes]], a stream's index) are declared, checked and resolved in keys.go
// into scenario.IndexSpec, and compile builds the setting (Indexes), whose planners are a
// run's own; its engine side is a sim.Setting with shards of its own (sim.ShardOwner) that
// plans the streams through planners of its own (Core.Replan) and admits the subrequests
// that reach its shards (sim.SubAdmit).
package index

import (
	"fmt"
	"math/rand/v2"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
)

// Index is a global secondary index of the table.
type Index struct {
	Name string
	// ShardNode[s] is the node that serves the index's shard s. In the engine and the
	// Result the index's shards come after the table's (and the indexes before it):
	// metrics.IndexLayout.First is the first one's id.
	ShardNode []int
	// Planners holds, per stream in sim.Model.Streams order, the planner of the index entry
	// that one of the stream's writes writes, over the index's own shard ids (from 0); nil
	// for a stream that does not write. It plans from the write's field values.
	Planners []sim.Planner
	// Reads are the streams (by index) whose reads or scans are routed over the index:
	// their sim.Stream.Planner plans over the index's shard ids, from 0.
	Reads []int
	// Async: the write's client does not wait for the index (its subrequest is detached
	// once admitted at its node). Otherwise the write completes when the table and the
	// index have it.
	Async bool
	// WriteRate and ReadRate are each index partition's limit, in partitions written
	// (read) per second, as sim.PartitionLimits' units (0: no limit); a partition banks
	// Burst of them (at least one second's).
	WriteRate, ReadRate float64
	Burst               sim.Time
}

// Indexes is the setting of the table's indexes, in their order (their shards are
// numbered in it). It is a run's own, as its planners are: compile builds one for each
// model, and OwnShards notes in it where the indexes' shards begin.
type Indexes struct {
	List  []Index
	first int32 // the first index shard's id (OwnShards)
}

var (
	_ sim.Setting    = (*Indexes)(nil)
	_ sim.ShardOwner = (*Indexes)(nil)
	_ sim.Coupling   = (*Indexes)(nil)
	_ sim.SubAdmit   = (*state)(nil)
	_ sim.WrapUpper  = (*state)(nil)
)

// throttled is the failure cause of a write or a read an index partition's limit turned
// away: a partition limit's, which mechanisms/limits registers (Throttled) at the same
// rank, under the same name: the client retries it, and the figures count it as throttled.
var throttled = sim.RegisterCause(0, "throttled", true)

// state is a run's indexes: which index each index shard belongs to, the partitions'
// limits, and the planners that add the index's visits to a write's or route a read over
// the index.
type state struct {
	off  int32   // the first index shard's id
	defs []Index // Indexes.List
	of   []int32 // by index shard (id - off): its index
	// By index shard (id - off), when its index has a limit (nil otherwise, or a zero
	// rate): the partition's token buckets of writes and reads.
	write, read []bucket
	writeP      []indexWrites
	readP       []offsetPlanner
}

// OwnShards adds the indexes' shards after the table's, before the engine sizes its
// results.
func (x *Indexes) OwnShards(c sim.Core) {
	for i := range x.List {
		d := &x.List[i]
		if len(d.ShardNode) == 0 || len(d.Planners) != c.Streams() {
			panic(fmt.Sprintf("index: index %q needs a shard and a planner entry per stream", d.Name))
		}
		for s, n := range d.ShardNode {
			if n < 0 || n >= c.Nodes() {
				panic(fmt.Sprintf("index: index %s's shard %d on missing node %d", d.Name, s, n))
			}
		}
		first := c.AddShards(d.ShardNode)
		if i == 0 {
			x.first = first
		}
	}
}

// On records the indexes' layouts in the Result, routes the streams through the indexes'
// planners, and admits the subrequests that reach the indexes' shards.
func (x *Indexes) On(c sim.Core) {
	if len(x.List) == 0 {
		return
	}
	g := &state{off: x.first, defs: x.List}
	first := int(x.first)
	layouts := make([]metrics.IndexLayout, 0, len(x.List))
	for i, d := range x.List {
		for range d.ShardNode {
			g.of = append(g.of, int32(i))
		}
		layouts = append(layouts, metrics.IndexLayout{Name: d.Name, First: first, Shards: len(d.ShardNode), Async: d.Async})
		first += len(d.ShardNode)
	}
	c.Report(layouts)
	g.newBuckets()
	c.Register(g) // no events: its wrap-up
	g.route(c)
	c.AdmitSubs(g)
}

// Note is "": explain says what its figures leave out of the indexes (compile).
func (*Indexes) Note() string { return "" }

// Waiter is 0: an index holds nothing back before the nodes' queues.
func (*Indexes) Waiter() float64 { return 0 }

// Couples says why a run with an index stays on one engine.
func (*Indexes) Couples() string {
	return "a global secondary index joins each write's table and index shards (index.go)"
}

// newBuckets gives the limited indexes' partitions their token buckets.
func (g *state) newBuckets() {
	for s, i := range g.of {
		x := &g.defs[i]
		if x.WriteRate <= 0 && x.ReadRate <= 0 {
			continue
		}
		if g.write == nil {
			g.write, g.read = make([]bucket, len(g.of)), make([]bucket, len(g.of))
		}
		g.write[s], g.read[s] = limitBucket(x.WriteRate, x.Burst), limitBucket(x.ReadRate, x.Burst)
	}
}

// route points every stream at a planner that adds the indexes' visits to a write's, or
// routes a read or scan over its index's shards. The request path plans through its usual
// interface call.
func (g *state) route(c sim.Core) {
	n := c.Streams()
	g.writeP, g.readP = make([]indexWrites, n), make([]offsetPlanner, n)
	over := make([]int32, n) // by stream: 1 + the index it reads over, 0 for none
	first := g.off
	for j := range g.defs {
		for _, i := range g.defs[j].Reads {
			over[i] = first + 1
		}
		first += int32(len(g.defs[j].ShardNode))
	}
	for i := range n {
		switch {
		case c.Op(i) == sim.Write:
			w := &g.writeP[i]
			w.table = c.Planner(i)
			off := g.off
			for _, x := range g.defs {
				w.idx = append(w.idx, offsetPlanner{p: x.Planners[i], off: off})
				off += int32(len(x.ShardNode))
			}
			c.Replan(i, w)
		case over[i] > 0:
			g.readP[i] = offsetPlanner{p: c.Planner(i), off: over[i] - 1}
			c.Replan(i, &g.readP[i])
		}
	}
}

// indexWrites plans a write: the table's visits, then each index's, whose shard ids are
// offset past the table's (and the indexes' before it).
type indexWrites struct {
	table sim.Planner
	idx   []offsetPlanner
}

// Plan appends the write's visits to dst: the table's first (a request's first visit is
// its shard), then each index's.
func (p *indexWrites) Plan(dst []keyspace.Visit, r *rand.Rand, fields []uint64, rowTime int64) []keyspace.Visit {
	dst = p.table.Plan(dst, r, fields, rowTime)
	for k := range p.idx {
		dst = p.idx[k].Plan(dst, r, fields, rowTime)
	}
	return dst
}

// offsetPlanner plans over an index's shard ids, from off.
type offsetPlanner struct {
	p   sim.Planner
	off int32
}

// Plan appends the visits of p, offset by off, to dst.
func (p *offsetPlanner) Plan(dst []keyspace.Visit, r *rand.Rand, fields []uint64, rowTime int64) []keyspace.Visit {
	n := len(dst)
	dst = p.p.Plan(dst, r, fields, rowTime)
	for k := n; k < len(dst); k++ {
		dst[k].Shard += p.off
	}
	return dst
}

// Admit admits subrequest si, which reached its node at now: a subrequest of the table's
// shards goes on; one of an index's shard is refused (and has failed, its attempt with
// it) when its partition's limit has no units left or, an asynchronous index's write, when
// its node's queue is full. An asynchronous index write it admits is detached from its
// request: the request no longer waits for it.
func (g *state) Admit(c sim.Core, now sim.Time, si int32) bool {
	x := c.SubShard(si) - g.off
	if x < 0 || int(x) >= len(g.of) {
		return true
	}
	write := c.SubWrite(si)
	if g.write != nil {
		b := &g.read[x]
		if write {
			b = &g.write[x]
		}
		if b.rate > 0 && !b.take(now, float64(c.SubParts(si))) {
			c.Refuse(now, si, throttled)
			return false
		}
	}
	if !write || !g.defs[g.of[x]].Async {
		return true
	}
	if c.QueueFull(c.SubNode(si)) {
		c.Reject(now, si) // the table's write is rejected with it
		return false
	}
	c.Detach(now, si)
	return true
}

// Handle is never called: the indexes schedule no events.
func (g *state) Handle(sim.Core, sim.Time, int32) { panic("index: the indexes schedule no events") }

// WrapUp takes the rows a synchronous index's writes put on the index's shards out of the
// writing streams' ShardRows, so that a stream's ShardRows are the table's rows it wrote
// whatever the index's mode (an asynchronous index's writes are never counted there).
func (g *state) WrapUp(c sim.Core) {
	for i := range c.Streams() {
		if rows := c.StreamOut(i).ShardRows; rows != nil {
			clear(rows[g.off:])
		}
	}
}

// bucket is a token bucket: level units now, refilled at rate units per second up to size
// (the arithmetic of sim's partition limits).
type bucket struct {
	level, rate, size float64
	last              sim.Time
}

// limitBucket is the bucket of a partition limit of rate per second banking burst: full,
// and at least one second's; a rate of 0 is no limit (an empty bucket whose rate is 0 is
// never asked: see Admit).
func limitBucket(rate float64, burst sim.Time) bucket {
	if rate <= 0 {
		return bucket{}
	}
	size := max(rate*max(burst.Seconds(), 1), 1)
	return bucket{level: size, rate: rate, size: size}
}

// take takes units from the bucket at now, if it has them.
func (b *bucket) take(now sim.Time, units float64) bool {
	if now > b.last {
		b.level = min(b.size, b.level+b.rate*float64(now-b.last)/float64(sim.Second))
		b.last = now
	}
	if b.level < units {
		return false
	}
	b.level -= units
	return true
}
