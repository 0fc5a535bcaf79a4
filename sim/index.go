package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/shardsim/shardsim/keyspace"
)

// This file holds global secondary indexes (Model.Indexes, docs/mitigations.md, "Global
// secondary indexes"): a second layout of the table's rows, with its own key design,
// scheme and shards, whose shard ids follow the table's. Every write of the table writes
// each index as well: with a synchronous index the write's request visits the table's
// shard and the index's, and completes when both have served it (a fork-join, the
// request path's ordinary several visits); with an asynchronous one the index's
// subrequest, once admitted at its node, is detached from the request and served as
// nobody waits for it, as a follower's apply. Admission is where an index pushes back:
// an index partition whose limit has no units left throttles the write, and a full queue
// on its node rejects it, so that the table's write fails (DynamoDB throttles base-table
// writes when a global secondary index lacks write capacity). Reads and scans with
// Stream.Index go to the index's shards by its key design.

// Index is a global secondary index of the table.
type Index struct {
	Name string
	// ShardNode[s] is the node that serves the index's shard s. In the engine and the
	// Result the index's shards come after the table's (and the indexes before it):
	// IndexLayout.First is the first one's id.
	ShardNode []int
	// Planners holds, per stream in Model.Streams order, the planner of the index entry
	// that one of the stream's writes writes, over the index's own shard ids (from 0); nil
	// for a stream that does not write. It plans from the write's field values.
	Planners []Planner
	// Async: the write's client does not wait for the index (its subrequest is detached
	// once admitted at its node). Otherwise the write completes when the table and the
	// index have it.
	Async bool
	// WriteRate and ReadRate are each index partition's limit, in partitions written
	// (read) per second, as PartitionLimits' units (0: no limit); a partition banks Burst
	// of them (at least one second's).
	WriteRate, ReadRate float64
	Burst               Time
}

// IndexLayout says where an index's shards are in a Result: the ids First to
// First+Shards-1.
type IndexLayout struct {
	Name          string
	First, Shards int
	Async         bool
}

// indexMark is the attempt number of an asynchronous index write once detached from its
// request (req followerReq): its end concerns nobody.
const indexMark = outboxMark - 1

// indexes is the engine's state of Model.Indexes: which index each index shard belongs
// to, the partitions' limits, and the streams as the engine sees them, whose planners add
// the index's visits to a write's or route a read over the index.
type indexes struct {
	off  int32   // the first index shard's id
	defs []Index // Model.Indexes
	of   []int32 // by index shard (id - off): its index
	// By index shard (id - off), when its index has a limit (nil otherwise, or a zero
	// rate): the partition's token buckets of writes and reads.
	write, read []bucket
	noHooks
	streams []Stream
	writeP  []indexWrites
	readP   []offsetPlanner
}

// newIndexes extends the engine's shard ids by the indexes' shards; called by newEngine
// before the result arrays are sized, with the table's shard ids (a migration's new
// layout's included) already counted.
func (e *engine) newIndexes() {
	m := e.m
	if len(m.Indexes) == 0 {
		return
	}
	if m.Migration != nil || e.growing || m.Rebalance != nil {
		panic("sim: an index cannot be combined with a migration, a Setting that adds shards to the table or a rebalance")
	}
	g := &indexes{off: int32(e.nShards), defs: m.Indexes}
	for i, x := range m.Indexes {
		if len(x.ShardNode) == 0 || len(x.Planners) != len(m.Streams) {
			panic(fmt.Sprintf("sim: index %q needs a shard and a planner entry per stream", x.Name))
		}
		for range x.ShardNode {
			g.of = append(g.of, int32(i))
		}
	}
	g.newBuckets()
	e.nShards += len(g.of)
	e.gsi = g
	e.register(g, false)
}

// newBuckets gives the limited indexes' partitions their token buckets.
func (g *indexes) newBuckets() {
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

// bucket is a token bucket: level units now, refilled at rate units per second up to size.
type bucket struct {
	level, rate, size float64
	last              Time
}

func (b *bucket) fill(now Time) {
	if now > b.last {
		b.level = min(b.size, b.level+b.rate*float64(now-b.last)/float64(Second))
		b.last = now
	}
}

// newBucket returns a full bucket that banks seconds of its rate; at least one second's, so
// that a subrequest reading many partitions at once can pass.
func newBucket(rate, seconds float64) bucket {
	size := max(rate*max(seconds, 1), 1)
	return bucket{level: size, rate: rate, size: size}
}

// limitBucket is the bucket of a partition limit of rate per second banking burst; a
// rate of 0 is no limit (an empty bucket whose rate is 0 is never asked: see admit).
func limitBucket(rate float64, burst Time) bucket {
	if rate <= 0 {
		return bucket{}
	}
	return newBucket(rate, burst.Seconds())
}

// placeIndexes puts the indexes' shards on their nodes and records their layouts in the
// Result; called with the table's shards placed.
func (e *engine) placeIndexes() {
	g := e.gsi
	if g == nil {
		return
	}
	first := int(g.off)
	for _, x := range g.defs {
		e.place(x.ShardNode, first, "index "+x.Name+"'s shard %d on missing node %d")
		e.res.Indexes = append(e.res.Indexes, IndexLayout{Name: x.Name, First: first, Shards: len(x.ShardNode), Async: x.Async})
		first += len(x.ShardNode)
	}
}

// routeIndexes points every stream's state at a copy of its Stream whose planner adds the
// indexes' visits to a write's, or routes a read or scan over its index's shards; called
// once the streams are set up. The request path plans through its usual interface call.
func (e *engine) routeIndexes() {
	g := e.gsi
	if g == nil {
		return
	}
	m := e.m
	n := len(m.Streams)
	g.streams, g.writeP, g.readP = make([]Stream, n), make([]indexWrites, n), make([]offsetPlanner, n)
	for i := range m.Streams {
		s, st := &m.Streams[i], &e.streams[i]
		g.streams[i] = *s
		switch {
		case s.Op == Write:
			w := &g.writeP[i]
			w.table = s.Planner
			off := g.off
			for _, x := range g.defs {
				w.idx = append(w.idx, offsetPlanner{p: x.Planners[i], off: off})
				off += int32(len(x.ShardNode))
			}
			g.streams[i].Planner = w
		case s.Index > 0:
			first := g.off
			for _, x := range g.defs[:s.Index-1] {
				first += int32(len(x.ShardNode))
			}
			g.readP[i] = offsetPlanner{p: s.Planner, off: first}
			g.streams[i].Planner = &g.readP[i]
		default:
			continue
		}
		st.s, st.point = &g.streams[i], nil
	}
}

// indexWrites plans a write: the table's visits, then each index's, whose shard ids are
// offset past the table's (and the indexes' before it).
type indexWrites struct {
	table Planner
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
	p   Planner
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

// refuse admits subrequest si of a request (not a follower's), which reached index shard
// sub.shard at now: it reports true when the index refused it, and the subrequest has
// failed (its attempt with it). An asynchronous index write it admits is detached from its
// request: the request no longer waits for it.
func (g *indexes) refuse(e *engine, now Time, si int32) bool {
	sub := &e.subs.items[si]
	x := sub.shard - g.off
	if g.write != nil {
		b := &g.read[x]
		if sub.write {
			b = &g.write[x]
		}
		if b.rate > 0 && !b.take(now, float64(sub.parts)) {
			e.indexThrottled(now, si)
			return true
		}
	}
	if !sub.write || !g.defs[g.of[x]].Async {
		return false
	}
	if n := &e.nodes[sub.node]; n.busy >= n.cores && n.limit > 0 && n.q.Len() >= n.limit {
		e.queueRefused(now, si) // the table's write is rejected with it
		return true
	}
	e.detach(now, si)
	return false
}

// take takes units from the bucket at now, if it has them.
func (b *bucket) take(now Time, units float64) bool {
	b.fill(now)
	if b.level < units {
		return false
	}
	b.level -= units
	return true
}

// indexThrottled fails subrequest si, which an index partition's limit refused at now,
// and its attempt with it.
func (e *engine) indexThrottled(now Time, si int32) {
	sub := &e.subs.items[si]
	if now >= e.m.Warmup {
		e.res.Shards[sub.shard].Throttled++
	}
	if sub.req <= soloReq {
		e.promote(now, si)
	}
	ri, attempt := sub.req, int32(sub.attempt)
	e.subs.put(si)
	e.subEnd(ri, attempt, now, failThrottled)
}

// detach makes asynchronous index write si, admitted at its node at now, a subrequest
// nobody waits for: its request counts it as ended.
func (e *engine) detach(now Time, si int32) {
	sub := &e.subs.items[si]
	ri, attempt := sub.req, int32(sub.attempt)
	sub.req, sub.attempt = followerReq, indexMark
	if r := &e.reqs.items[ri]; r.plain {
		if r.pending--; r.pending == 0 {
			e.finishPlain(ri, r)
		}
		return
	}
	e.subEnd(ri, attempt, now, failNone)
}

// handle is never called: the indexes schedule no events.
func (g *indexes) handle(*engine, event) { panic("sim: the indexes schedule no events") }

// wrapUp takes the rows a synchronous index's writes put on the index's shards out of the
// writing streams' ShardRows, so that a stream's ShardRows are the table's rows it wrote
// whatever the index's mode (an asynchronous index's writes are never counted there).
func (g *indexes) wrapUp(e *engine) {
	for i := range e.res.Streams {
		if rows := e.res.Streams[i].ShardRows; rows != nil {
			clear(rows[g.off:])
		}
	}
}
