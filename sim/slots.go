package sim

import "github.com/shardsim/shardsim/keyspace"

// slotTable holds the engine's objects in flight, in pools of reusable slots (requests,
// subrequests, heap timers), and the arrays kept beside a pool by slot, for the few
// objects that need them: they are sized to the pool as it grows, so that the slot types
// stay small and steady state allocates nothing.
type slotTable struct {
	reqs   pool[request]
	subs   pool[subreq]
	timers pool[timer]
	// By request slot.
	visits    [][]keyspace.Visit // a kept request's visits
	keys      []uint64           // a request's key identity (cache, sampled)
	deadlines []Time             // the client's deadline for a request's attempt
	gens      []uint32           // a slot's generation: how often it was reused since a timer
	samples   []int32            // where a sampled request's key values wait (observe.go)
	// By subrequest slot.
	issues  []Time // a solo's issue time (see sendSolo)
	arrived []Time // when a queued subrequest reached its node
}

// request is kept to 48 bytes, for the same reason as subreq; the fields few requests
// need (a key identity, a sample) live beside the pool, in slotTable.keys and
// slotTable.samples.
type request struct {
	issue Time // the client issued the request (its first attempt) at issue
	done  Time // latest end of the current attempt's subrequests so far
	// inflight counts the request's subrequests still at the nodes (of any attempt) and
	// its pending timer; the slot is reused once the request is finished and inflight is 0.
	stream   int32
	pending  int32 // subrequests of the current attempt not yet ended
	inflight int32
	attempt  int32
	shard    int32 // the shard of its first visit
	fail     uint8
	kind     uint8
	counted  bool // issued after warmup
	live     bool // the current attempt is still awaited by the client
	finished bool // the outcome is recorded
	lead     bool // its database read is led by a RequestTaker (Core.Lead)
	sampled  bool // its latency goes into the per-key statistics
	plain    bool // sent by sendPlain: one attempt, no timer (see finishPlain)
}

// subreq is kept to 24 bytes: a node's queue can hold hundreds of thousands of them, and
// the time to serve them goes with the memory they take.
type subreq struct {
	service Time
	req     int32 // the request, or -1 for a follower's apply
	shard   int32
	parts   int32
	node    int16 // at most 10,000 nodes
	attempt uint8 // at most 1 + 10 retries
	write   bool  // a write: the shard gains a row
}

type timer struct {
	req     int32
	attempt int32
	gen     uint32 // the generation of the request's slot when the timer was set
}

// pool is a slice of slots with a free list: slots are reused, so once the pool has grown
// to the run's largest number in flight, taking one does not allocate.
type pool[T any] struct {
	items []T
	free  []int32
}

// take returns a free slot's index, growing the pool when none is free. A full pool
// doubles: append grows a large slice by a quarter at a time, and a backlog of two million
// subrequests (saturated.toml) took some forty copies, four times its final size in all,
// each into memory the kernel had to fault in; doubling takes fifteen, about its final
// size (docs/performance.md). Written with the builtin append alone, so that take still
// inlines.
func (p *pool[T]) take() int32 {
	if n := len(p.free); n > 0 {
		i := p.free[n-1]
		p.free = p.free[:n-1]
		return i
	}
	n := len(p.items)
	if n == cap(p.items) {
		// Room for n+64 more slots: append allocates at least that, twice the pool and
		// more (the compiler appends the zeroed slots without making a slice of them).
		p.items = append(p.items, make([]T, n+64)...)[:n]
	}
	var zero T
	p.items = append(p.items, zero)
	return int32(n)
}

// put returns slot i to the pool.
func (p *pool[T]) put(i int32) { p.free = append(p.free, i) }

// subStream is the stream of subrequest sub, which a client request sent (not a
// follower's apply).
func (t *slotTable) subStream(sub *subreq) int {
	if sub.req <= soloReq {
		return int(soloReq - sub.req)
	}
	return int(t.reqs.items[sub.req].stream)
}

// subCounted reports whether client subrequest si's request was issued at or after
// warmup, once it has reached its node (a solo's issue time is recorded by then).
func (t *slotTable) subCounted(si int32, warmup Time) bool {
	sub := &t.subs.items[si]
	if sub.req <= soloReq {
		return t.issues[si] >= warmup
	}
	return t.reqs.items[sub.req].counted
}

// setKey records request ri's key identity.
func (t *slotTable) setKey(ri int32, k uint64) {
	for int(ri) >= len(t.keys) {
		t.keys = append(t.keys, 0)
	}
	t.keys[ri] = k
}

// keepVisits stores a copy of visits with request ri. The slot's slice is reused, so once
// the pool has grown this does not allocate.
func (t *slotTable) keepVisits(ri int32, visits []keyspace.Visit) {
	for int(ri) >= len(t.visits) {
		t.visits = append(t.visits, nil)
	}
	t.visits[ri] = append(t.visits[ri][:0], visits...)
}

// growArrived makes room in arrived for subrequest slot si (the pool has grown).
func (t *slotTable) growArrived(si int32) {
	for int(si) >= len(t.arrived) {
		t.arrived = append(t.arrived, 0)
	}
}

// release returns request ri's slot to the pool once nothing refers to it any more.
func (t *slotTable) release(ri int32) {
	r := &t.reqs.items[ri]
	if r.finished && r.inflight == 0 {
		if int(ri) < len(t.gens) {
			t.gens[ri]++ // a timer set for this request must not act on the slot's next one
		}
		t.reqs.put(ri)
	}
}
