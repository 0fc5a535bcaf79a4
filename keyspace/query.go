package keyspace

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// PartMode says which values one key part takes in a query.
type PartMode uint8

const (
	// Known: the query knows the part (an equality, or derived from known fields).
	Known PartMode = iota
	// Enumerate: every value 0..Count-1 (a categorical field, a salt, hash(f, N)).
	Enumerate
	// BucketRange: the time buckets of width Width that [t-Span, t) overlaps.
	BucketRange
	// TimeRange: the values of a raw time-ordered field over [t-Span, t), visited as the
	// range of keys they span (range scheme only).
	TimeRange
	// Scatter: any value at all (an unconstrained high-cardinality field): every shard.
	Scatter
)

// A TimeBounder gives the smallest and largest value of a time-ordered field at time t.
type TimeBounder interface {
	Bounds(t int64) (lo, hi uint64)
}

// PartQuery is how a query constrains one key part (salt included, as part 0 when the
// design is salted).
type PartQuery struct {
	Mode   PartMode
	Count  uint64      // Enumerate
	Span   int64       // BucketRange, TimeRange: the query covers [t-Span, t)
	Width  int64       // BucketRange
	Bounds TimeBounder // TimeRange
}

// Spanner is a scheme that can say which shards hold a range of keys (the range scheme),
// as one run of consecutive ids. A Splitter over the range scheme cannot (the shards split
// off a range have later ids) and is not a Spanner; the query planner asks it directly.
type Spanner interface {
	Span(lo, hi *Key) (first, last int)
}

// QueryPlanner plans scans that constrain some key parts: it enumerates the partitions the
// scan must read (the product of each part's values), routes each and groups them into one
// visit per shard. A scatter part sends the scan to every shard instead (every live shard,
// on a Splitter); a time-range part on a range scheme, or on a Splitter over one, visits
// the shards that hold the keys of that time range. Scans read copy 0 of copied rows.
type QueryPlanner struct {
	design  *Design
	scheme  Scheme
	parts   []PartQuery
	scatter bool
	timeIdx int // index of the TimeRange part, or -1
	g       grouper
	key     Key
	lo, hi  Key
	start   [MaxParts]uint64
	count   [MaxParts]uint64
	cur     [MaxParts]uint64
	// The row model (see SetRows); nil: visits carry no rows.
	rows    *Rows
	perRows []int64 // rows read per shard, for the request being planned
	span    grouper // scratch: the shards of one time-range span, in key order
	cached  planCache
}

// SetRows gives the planner a row model: each visit then carries the rows it reads, and
// with the model's limit the scan stops once it has read that many (see Rows). Partitions
// are then walked in key order with every time-bucket part newest first.
func (p *QueryPlanner) SetRows(m *Rows) {
	p.rows = m
	p.perRows = make([]int64, len(p.g.count))
	p.span = newGrouper(len(p.g.count))
}

// NewQueryPlanner returns a planner for a query that constrains the key's parts as parts
// says (one entry per key part, salt first when salted). It returns an error for a
// TimeRange part on a scheme that cannot span key ranges, or more than one TimeRange part,
// or for a design that is not valid.
func NewQueryPlanner(d *Design, s Scheme, parts []PartQuery) (*QueryPlanner, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("keyspace: %w", err)
	}
	p := &QueryPlanner{design: d, scheme: s, parts: parts, timeIdx: -1, g: newGrouper(s.Shards())}
	for i, q := range parts {
		switch q.Mode {
		case Scatter:
			p.scatter = true
		case TimeRange:
			if p.timeIdx >= 0 {
				return nil, fmt.Errorf("keyspace: a query can range over one raw time field only")
			}
			if !spans(s) {
				p.scatter = true // hashing destroys order: every shard may hold the range
			}
			p.timeIdx = i
		}
	}
	return p, nil
}

// Scatters reports whether the planner sends every query to every shard.
func (p *QueryPlanner) Scatters() bool { return p.scatter }

// Plan appends the query's visits to dst. fields and rowTime are the query's: known parts
// come from them, and time ranges end at rowTime.
func (p *QueryPlanner) Plan(dst []Visit, r *rand.Rand, fields []uint64, rowTime int64) []Visit {
	if p.rows != nil {
		return p.planRows(dst, r, fields, rowTime)
	}
	if p.scatter {
		for s, n := 0, liveShards(p.scheme); s < n; s++ {
			dst = append(dst, Visit{Shard: int32(s), Partitions: 1})
		}
		return dst
	}
	d := p.design
	var salt uint64
	if d.Salted() && p.parts[0].Mode == Known {
		var unused uint64
		salt = d.WriteSalt(r, fields, &unused) // a hash salt of a field the query knows
	}
	d.KeyInto(&p.key, fields, rowTime, salt)
	n := int(p.key.N)
	p.ranges(n, rowTime)
	// The visits depend only on the parts' value ranges and on the scheme's splits (a time
	// range also on rowTime, which changes with every scan): a scan whose ranges are the
	// last one's reuses its visits instead of routing every partition again.
	cacheable := p.timeIdx < 0
	if cacheable {
		epoch := splitEpoch(p.scheme)
		if p.cached.ok && p.cached.epoch == epoch && p.cached.start == p.start && p.cached.count == p.count {
			return append(dst, p.cached.visits...)
		}
		p.cached.ok, p.cached.epoch, p.cached.start, p.cached.count = false, epoch, p.start, p.count
	}
	p.walk(n, rowTime)
	from := len(dst)
	dst = p.g.flush(dst)
	if cacheable {
		p.cached.visits = append(p.cached.visits[:0], dst[from:]...)
		p.cached.ok = true
	}
	return dst
}

// walk routes every key of the parts' value ranges (an odometer over them) into the
// planner's visit gatherer, or spans the time range of each when a part is one.
func (p *QueryPlanner) walk(n int, rowTime int64) {
	for i := 0; i < n; i++ {
		p.cur[i] = 0
	}
	for {
		for i := 0; i < n; i++ {
			p.key.P[i] = p.start[i] + p.cur[i]
		}
		if p.timeIdx >= 0 {
			p.spanTime(n, rowTime)
		} else {
			p.g.add(p.scheme.Shard(&p.key))
		}
		if !p.next(n) {
			return
		}
	}
}

// ranges sets the value range (start, count) of each of the key's n parts for a query at
// rowTime, from the key built from the query's fields: a known part's one value, an
// enumerated part's values, the time buckets the range overlaps. A time-range part is
// spanned, not enumerated, and so are the parts after it (covered by its key span).
func (p *QueryPlanner) ranges(n int, rowTime int64) {
	d := p.design
	for i := 0; i < n; i++ {
		q := &p.parts[i]
		if p.timeIdx >= 0 && i > p.timeIdx {
			p.start[i], p.count[i] = 0, 1
			continue
		}
		switch q.Mode {
		case Known:
			p.start[i], p.count[i] = p.key.P[i], 1
		case Enumerate:
			p.start[i], p.count[i] = 0, q.Count
		case BucketRange:
			first := d.BucketOf(rowTime-q.Span, q.Width)
			last := d.BucketOf(rowTime-1, q.Width)
			p.start[i], p.count[i] = first, last-first+1
		case TimeRange:
			p.start[i], p.count[i] = 0, 1
		}
	}
}

// next advances the odometer over the n parts' value ranges, the last part fastest; it
// reports false once every combination has been visited.
func (p *QueryPlanner) next(n int) bool {
	for i := n - 1; i >= 0; i-- {
		if p.cur[i]++; p.cur[i] < p.count[i] {
			return true
		}
		p.cur[i] = 0
	}
	return false
}

// planCache is a QueryPlanner's last plan: the parts' value ranges and the scheme's split
// count it was made for, and its visits.
type planCache struct {
	ok           bool
	epoch        int
	start, count [MaxParts]uint64
	visits       []Visit
}

// splitEpoch counts the splits a Splitter has made, which change where keys go; the other
// schemes never change.
func splitEpoch(s Scheme) int {
	if sp, ok := s.(*Splitter); ok {
		return len(sp.made)
	}
	return 0
}

// spanTime adds the shards that hold the keys of the current combination with the time part
// anywhere in [rowTime-Span, rowTime); parts after the time part are unconstrained.
func (p *QueryPlanner) spanTime(n int, rowTime int64) {
	ti := p.timeIdx
	q := &p.parts[ti]
	p.lo, p.hi = p.key, p.key
	p.lo.P[ti], _ = q.Bounds.Bounds(rowTime - q.Span)
	_, p.hi.P[ti] = q.Bounds.Bounds(rowTime - 1)
	for i := ti + 1; i < n; i++ {
		p.lo.P[i], p.hi.P[i] = 0, math.MaxUint64
	}
	if sp, ok := p.scheme.(*Splitter); ok {
		sp.spanInto(&p.g, &p.lo, &p.hi)
		return
	}
	first, last := p.scheme.(Spanner).Span(&p.lo, &p.hi)
	for s := first; s <= last; s++ {
		p.g.add(s)
	}
}

// spans reports whether s can say which shards hold a range of keys.
func spans(s Scheme) bool {
	if sp, ok := s.(*Splitter); ok {
		return sp.spans()
	}
	_, ok := s.(Spanner)
	return ok
}

// MaxPartitions returns the most partitions one query can visit, or 0 for a scatter
// planner (which visits one per shard); it does not count a time-range part, which is
// bounded by the number of shards.
func MaxPartitions(parts []PartQuery) float64 {
	total := 1.0
	for _, q := range parts {
		switch q.Mode {
		case Enumerate:
			total *= float64(q.Count)
		case BucketRange:
			// [t-Span, t) overlaps at most this many buckets, for the worst t.
			total *= float64((q.Span+q.Width-2)/q.Width + 1)
		case Scatter:
			return 0
		}
	}
	return total
}

// timeRange returns the scan's time range: the span of its bucket or time-range part, or
// everything up to rowTime.
func (p *QueryPlanner) timeRange(rowTime int64) (from, to int64) {
	for i := range p.parts {
		if m := p.parts[i].Mode; m == BucketRange || m == TimeRange {
			return rowTime - p.parts[i].Span, rowTime
		}
	}
	return math.MinInt64, rowTime
}

// planRows is Plan with the row model: the same partitions and shards, walked in key
// order with time buckets newest first, each visit carrying its rows, and the walk
// stopping at the model's limit.
func (p *QueryPlanner) planRows(dst []Visit, r *rand.Rand, fields []uint64, rowTime int64) []Visit {
	m := p.rows
	d := p.design
	var salt uint64
	if d.Salted() && p.parts[0].Mode == Known {
		var unused uint64
		salt = d.WriteSalt(r, fields, &unused)
	}
	d.KeyInto(&p.key, fields, rowTime, salt)
	n := int(p.key.N)
	from, to := p.timeRange(rowTime)
	if p.scatter {
		// Every shard: the rows that match the known parts, spread evenly; the other
		// parts take every value, so they do not narrow the rows.
		shards := liveShards(p.scheme)
		total := p.knownRows(n, from, to)
		per := roundRows(total / float64(max(shards, 1)))
		if m.Limit > 0 {
			per = min(per, m.Limit)
		}
		for s := 0; s < shards; s++ {
			dst = append(dst, Visit{Shard: int32(s), Partitions: 1, Rows: per})
		}
		return dst
	}
	p.ranges(n, rowTime)
	for i := 0; i < n; i++ {
		p.cur[i] = 0
	}
	left := m.Limit // rows still to read, when limited
	done := false
	for !done {
		for i := 0; i < n; i++ {
			v := p.start[i] + p.cur[i]
			if p.parts[i].Mode == BucketRange {
				v = p.start[i] + p.count[i] - 1 - p.cur[i] // newest first
			}
			p.key.P[i] = v
		}
		if p.timeIdx >= 0 {
			done = p.spanRows(n, rowTime, from, to, &left)
		} else {
			a, b := from, to
			for i := 0; i < n; i++ {
				if q := &p.parts[i]; q.Mode == BucketRange {
					bs := int64(p.key.P[i]^1<<63)*q.Width - d.Clock
					a, b = max(a, bs), min(b, bs+q.Width)
				}
			}
			rows := roundRows(m.written(&p.key, n, a, b))
			done = p.addRows(p.scheme.Shard(&p.key), rows, &left)
		}
		if !p.next(n) {
			break
		}
	}
	for _, s := range p.g.order {
		dst = append(dst, Visit{Shard: s, Partitions: p.g.count[s], Rows: p.perRows[s]})
		p.g.count[s], p.perRows[s] = 0, 0
	}
	p.g.order = p.g.order[:0]
	return dst
}

// knownRows is the rows written in [from, to) whose known parts (among the first n) have
// the values of p.key, the other parts counting every value.
func (p *QueryPlanner) knownRows(n int, from, to int64) float64 {
	m := p.rows
	a := max(from, -m.History)
	if to <= a {
		return 0
	}
	total := 0.0
	for i := range m.Sources {
		src := &m.Sources[i]
		w := src.Written(a, to)
		for j := 0; j < n && w > 0; j++ {
			if f := src.Share[j]; f != nil && p.parts[j].Mode == Known {
				w *= f(p.key.P[j])
			}
		}
		total += w
	}
	if m.OnePerKey {
		total = min(total, 1)
	}
	return total
}

// addRows adds one partition of rows on shard s to the request being planned, reading no
// more than the limit leaves; it reports whether the limit has been reached.
func (p *QueryPlanner) addRows(s int, rows int64, left *int64) bool {
	if p.rows.Limit > 0 {
		rows = min(rows, *left)
		*left -= rows
	}
	p.g.add(s)
	p.perRows[s] += rows
	return p.rows.Limit > 0 && *left <= 0
}

// spanRows is spanTime with the row model: the combination's rows in [from, to) (the parts
// before the time part narrowing them) are spread evenly over the shards its key range
// spans, which are read newest (last in key order) first. It reports whether the limit
// has been reached.
func (p *QueryPlanner) spanRows(n int, rowTime, from, to int64, left *int64) bool {
	ti := p.timeIdx
	q := &p.parts[ti]
	p.lo, p.hi = p.key, p.key
	p.lo.P[ti], _ = q.Bounds.Bounds(rowTime - q.Span)
	_, p.hi.P[ti] = q.Bounds.Bounds(rowTime - 1)
	for i := ti + 1; i < n; i++ {
		p.lo.P[i], p.hi.P[i] = 0, math.MaxUint64
	}
	if sp, ok := p.scheme.(*Splitter); ok {
		sp.spanInto(&p.span, &p.lo, &p.hi)
	} else {
		first, last := p.scheme.(Spanner).Span(&p.lo, &p.hi)
		for s := first; s <= last; s++ {
			p.span.add(s)
		}
	}
	total := p.rows.written(&p.key, ti, from, to)
	k := len(p.span.order)
	done := false
	for j := k - 1; j >= 0; j-- {
		s := p.span.order[j]
		p.span.count[s] = 0
		if done {
			continue
		}
		// The j-th shard's even share, rounded so that the shares add up to the total.
		rows := roundRows(total*float64(j+1)/float64(k)) - roundRows(total*float64(j)/float64(k))
		done = p.addRows(int(s), rows, left)
	}
	p.span.order = p.span.order[:0]
	return done
}
