package keyspace

import (
	"math"
	"math/rand/v2"
)

// A Visit is one subrequest of a request: the shard it goes to, how many partitions it
// reads there (a subrequest costs the stream's cost once per partition) and, for a scan
// whose planner has a row model (Rows), how many rows it reads there (0 otherwise).
type Visit struct {
	Shard      int32
	Partitions int32
	Rows       int64
}

// A Scheme maps a key to its shard.
type Scheme interface {
	Shard(k *Key) int
	Shards() int
}

var (
	_ Scheme = (*Modulo)(nil)
	_ Scheme = (*Ring)(nil)
	_ Scheme = (*Range)(nil)
	_ Scheme = (*Directory)(nil)
	_ Scheme = (*Splitter)(nil)
)

// grouper merges partitions into one visit per shard without allocating.
type grouper struct {
	count []int32 // partitions per shard of the request being planned
	order []int32 // shards touched, in first-touch order
}

func newGrouper(shards int) grouper {
	return grouper{count: make([]int32, shards), order: make([]int32, 0, shards)}
}

func (g *grouper) add(shard int) {
	if g.count[shard] == 0 {
		g.order = append(g.order, int32(shard))
	}
	g.count[shard]++
}

// flush appends the grouped visits to dst and resets the grouper.
func (g *grouper) flush(dst []Visit) []Visit {
	for _, s := range g.order {
		dst = append(dst, Visit{Shard: s, Partitions: g.count[s]})
		g.count[s] = 0
	}
	g.order = g.order[:0]
	return dst
}

// PointPlanner routes writes and point reads: every field is known, so a request goes to the
// one partition that holds its row, except that a point read of a key salted at random or
// round-robin must visit every salt bucket (grouped by shard), and a write of a copied row
// (Design.Copies) visits every copy.
type PointPlanner struct {
	design  *Design
	scheme  Scheme
	read    bool
	counter uint64 // round-robin salt state
	g       grouper
	key     Key // scratch: a local would escape through the Scheme interface call
	// The common design, a key of one field with neither salt nor copies, is planned
	// without building the key part by part: field is that field, or -1; modulo is the
	// scheme when it is plain hash sharding, whose hash of a one-part key is inlined.
	field  int
	modulo *Modulo
}

// NewPointPlanner returns a planner for writes (read == false) or point reads. It panics
// if the design is not valid (see Design.Validate).
func NewPointPlanner(d *Design, s Scheme, read bool) *PointPlanner {
	if err := d.Validate(); err != nil {
		panic("keyspace: NewPointPlanner: " + err.Error())
	}
	p := &PointPlanner{design: d, scheme: s, read: read, g: newGrouper(s.Shards()), field: -1}
	if len(d.Parts) == 1 && d.Parts[0].Kind == FieldPart && !d.Salted() && d.Copies == nil {
		p.field = d.Parts[0].Field
		p.modulo, _ = s.(*Modulo)
	}
	return p
}

// Plan appends the request's visits to dst. It draws from r for a random salt (writes) and
// for the copy a read of a copied row picks, and never otherwise.
//
// The design must not change once the planner is made.
func (p *PointPlanner) Plan(dst []Visit, r *rand.Rand, fields []uint64, rowTime int64) []Visit {
	if p.field >= 0 {
		v := fields[p.field]
		p.key.N, p.key.P[0] = 1, v
		var sh int
		if p.modulo != nil {
			sh = p.modulo.shardOne(v)
		} else {
			sh = p.scheme.Shard(&p.key)
		}
		return append(dst, Visit{Shard: int32(sh), Partitions: 1})
	}
	return p.plan(dst, r, fields, rowTime)
}

// plan is Plan for every design but the common one.
func (p *PointPlanner) plan(dst []Visit, r *rand.Rand, fields []uint64, rowTime int64) []Visit {
	d := p.design
	copies := uint64(d.CopiesOf(fields))
	if p.read && d.Salted() && d.SaltMode != SaltHash {
		c := uint64(0)
		if copies > 1 {
			c = r.Uint64N(copies)
		}
		for s := uint64(0); s < d.Salt; s++ {
			d.KeyInto(&p.key, fields, rowTime, s)
			withCopy(&p.key, c)
			p.g.add(p.scheme.Shard(&p.key))
		}
		p.key.P[0] = 0 // LastKey: bucket 0, the first visited
		return p.g.flush(dst)
	}
	d.KeyInto(&p.key, fields, rowTime, d.WriteSalt(r, fields, &p.counter))
	if copies > 1 {
		if !p.read {
			return p.planCopies(dst, copies)
		}
		withCopy(&p.key, r.Uint64N(copies))
	}
	return append(dst, Visit{Shard: int32(p.scheme.Shard(&p.key)), Partitions: 1})
}

// planCopies groups the partitions of every copy of p.key by shard and leaves p.key as
// copy 0.
func (p *PointPlanner) planCopies(dst []Visit, copies uint64) []Visit {
	n := p.key.N
	p.g.add(p.scheme.Shard(&p.key))
	for c := uint64(1); c < copies; c++ {
		p.key.N = n
		withCopy(&p.key, c)
		p.g.add(p.scheme.Shard(&p.key))
	}
	p.key.N, p.key.P[n] = n, 0
	return p.g.flush(dst)
}

// LastKey returns the partition key, salt included, of the row the latest Plan call
// planned: the partition it visited or, when it visited several (every salt bucket of a
// read, every copy of a write), the first of them (bucket 0, copy 0; a read keeps the copy
// it picked). The key is overwritten by the next Plan call; it must not be modified. Before
// the first call it is the empty key.
func (p *PointPlanner) LastKey() *Key { return &p.key }

// ScatterPlanner sends a request to every shard, one partition each: a scan that constrains
// no part of the key (scatter-gather).
type ScatterPlanner struct {
	shards int32
	split  *Splitter // when set, the live shards at plan time
	rows   *Rows     // when set, each visit reads its shard's share of the table's rows
}

// SetRows gives the planner a row model: each visit then reads an even share of every row
// written up to the scan's row time, at most the model's limit.
func (p *ScatterPlanner) SetRows(m *Rows) { p.rows = m }

// NewScatterPlanner returns a planner that visits shards 0 to shards-1.
func NewScatterPlanner(shards int) *ScatterPlanner { return &ScatterPlanner{shards: int32(shards)} }

// NewScatterPlannerFor returns a planner that visits every shard of s; for a Splitter, the
// shards live when each request is planned, so shards split off later are visited too.
func NewScatterPlannerFor(s Scheme) *ScatterPlanner {
	p := &ScatterPlanner{shards: int32(s.Shards())}
	p.split, _ = s.(*Splitter)
	return p
}

// Plan appends one visit per shard to dst.
func (p *ScatterPlanner) Plan(dst []Visit, _ *rand.Rand, _ []uint64, rowTime int64) []Visit {
	n := p.shards
	if p.split != nil {
		n = int32(p.split.Live())
	}
	var rows int64
	if p.rows != nil {
		rows = p.rows.ScanRows(int(n), math.MinInt64, rowTime)
	}
	for s := int32(0); s < n; s++ {
		dst = append(dst, Visit{Shard: s, Partitions: 1, Rows: rows})
	}
	return dst
}
