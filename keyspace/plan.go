package keyspace

import "math/rand/v2"

// A Visit is one subrequest of a request: the shard it goes to and how many partitions it
// reads there (a subrequest costs the stream's cost once per partition).
type Visit struct {
	Shard      int32
	Partitions int32
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
// round-robin must visit every salt bucket (grouped by shard).
type PointPlanner struct {
	design  *Design
	scheme  Scheme
	read    bool
	counter uint64 // round-robin salt state
	g       grouper
	key     Key // scratch: a local would escape through the Scheme interface call
}

// NewPointPlanner returns a planner for writes (read == false) or point reads.
func NewPointPlanner(d *Design, s Scheme, read bool) *PointPlanner {
	return &PointPlanner{design: d, scheme: s, read: read, g: newGrouper(s.Shards())}
}

// Plan appends the request's visits to dst.
func (p *PointPlanner) Plan(dst []Visit, r *rand.Rand, fields []uint64, rowTime int64) []Visit {
	d := p.design
	if p.read && d.Salted() && d.SaltMode != SaltHash {
		for s := uint64(0); s < d.Salt; s++ {
			d.KeyInto(&p.key, fields, rowTime, s)
			p.g.add(p.scheme.Shard(&p.key))
		}
		return p.g.flush(dst)
	}
	d.KeyInto(&p.key, fields, rowTime, d.WriteSalt(r, fields, &p.counter))
	return append(dst, Visit{Shard: int32(p.scheme.Shard(&p.key)), Partitions: 1})
}

// ScatterPlanner sends a request to every shard, one partition each: a scan that constrains
// no part of the key (scatter-gather).
type ScatterPlanner struct{ shards int32 }

// NewScatterPlanner returns a planner that visits all shards.
func NewScatterPlanner(shards int) *ScatterPlanner { return &ScatterPlanner{shards: int32(shards)} }

// Plan appends one visit per shard to dst.
func (p *ScatterPlanner) Plan(dst []Visit, _ *rand.Rand, _ []uint64, _ int64) []Visit {
	for s := int32(0); s < p.shards; s++ {
		dst = append(dst, Visit{Shard: s, Partitions: 1})
	}
	return dst
}
