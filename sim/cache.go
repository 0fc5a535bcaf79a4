package sim

import (
	"github.com/shardsim/shardsim/detect"

	"github.com/shardsim/shardsim/internal/waitlist"
)

// cache is the read cache of Model.Cache: a fixed number of entries in an LRU list, found
// through an open-addressing index, so that a lookup, an insertion or an eviction never
// allocates.
type cache struct {
	cfg   *Cache
	on    bool
	ent   []centry
	lru   waitlist.List   // the entries, the most recently used first
	links []waitlist.Link // the entries' places in lru, by entry
	index []int32         // linear probing; entry+1, 0 when empty
	mask  uint64
	used  int
}

type centry struct {
	key uint64
	// The value reached the client at from and expires at expires (client times); the
	// value it replaced, if any, is what reads issued before from still see.
	from, expires     Time
	prevFrom, prevExp Time
	hasPrev           bool
	wHead, wTail      int32 // requests waiting for the read in flight (single-flight)
	valid             bool  // holds a value (which may have expired)
	filling           bool  // a database read that will fill it is in flight
}

// at returns what the client sees of the entry at tc: have, it has a value, which expires
// at exp; pending, a newer one is on its way to it, which it has at en.from.
func (en *centry) at(tc Time) (have bool, exp Time, pending bool) {
	have, exp = en.valid && tc >= en.from, en.expires
	pending = en.valid && !have
	if pending && en.hasPrev && tc >= en.prevFrom {
		have, exp = true, en.prevExp
	}
	return have, exp, pending
}

func newCache(c *Cache) *cache {
	size := uint64(1)
	for size < uint64(2*c.Capacity) {
		size *= 2
	}
	return &cache{cfg: c, on: !c.Off, ent: make([]centry, c.Capacity), lru: waitlist.Empty, links: make([]waitlist.Link, c.Capacity),
		index: make([]int32, size), mask: size - 1}
}

func (c *cache) slot(key uint64) uint64 { return detect.Hash64(key) & c.mask }

// find returns key's entry, or -1.
func (c *cache) find(key uint64) int32 {
	for p := c.slot(key); ; p = (p + 1) & c.mask {
		i := c.index[p]
		if i == 0 {
			return -1
		}
		if c.ent[i-1].key == key {
			return i - 1
		}
	}
}

// insert adds an empty entry for key (which must be absent), evicting the least recently
// used entry that no read is filling when the cache is full. It returns -1 when every
// entry is being filled.
func (c *cache) insert(key uint64) int32 {
	var i int32
	if c.used < len(c.ent) {
		i = int32(c.used)
		c.used++
	} else {
		i = c.lru.Tail
		for i >= 0 && c.ent[i].filling {
			i = c.links[i].Prev
		}
		if i < 0 {
			return -1
		}
		c.unindex(c.ent[i].key)
		c.lru.Remove(c.links, i)
	}
	c.ent[i] = centry{key: key, wHead: -1, wTail: -1}
	p := c.slot(key)
	for c.index[p] != 0 {
		p = (p + 1) & c.mask
	}
	c.index[p] = i + 1
	c.lru.PushFront(c.links, i)
	return i
}

// unindex removes key from the index by backward-shift deletion, which keeps every other
// key reachable from its home slot without tombstones.
func (c *cache) unindex(key uint64) {
	p := c.slot(key)
	for c.ent[c.index[p]-1].key != key {
		p = (p + 1) & c.mask
	}
	for q := (p + 1) & c.mask; c.index[q] != 0; q = (q + 1) & c.mask {
		home := c.slot(c.ent[c.index[q]-1].key)
		// The entry at q may move to the hole at p unless its home lies cyclically in (p, q].
		if (q-home)&c.mask >= (q-p)&c.mask {
			c.index[p] = c.index[q]
			p = q
		}
	}
	c.index[p] = 0
}

// touch marks entry i as the most recently used.
func (c *cache) touch(i int32) {
	if c.lru.Head != i {
		c.lru.Remove(c.links, i)
		c.lru.PushFront(c.links, i)
	}
}

// cacheRead looks up the key of read request ri, whose database read would reach its node
// now. The cache sits with the client: it is consulted when the client issues the read
// (now - network) and a value is in it from the time the database's answer reaches the
// client. It reports true when the cache answered the read or the read waits for another
// read of its key; false when it must read the database (a miss, which then fills the
// cache).
func (e *engine) cacheRead(now Time, ri int32) bool {
	c := e.cache
	key := e.keys[ri]
	i := c.find(key)
	if i >= 0 {
		c.touch(i)
		if e.cacheAnswer(now, ri, &c.ent[i]) {
			return true
		}
	} else {
		i = c.insert(key)
	}
	if i >= 0 {
		c.ent[i].filling = true
	}
	e.reqs.items[ri].lead = true // send counts its database read (not a miss the rate limit turns away)
	return false
}

// cacheAnswer answers read request ri, whose key has entry en, if the entry can: a hit
// (fresh, or stale while a refresh is sent), or, with single-flight, a join of the read in
// flight or of the value on its way to the client. It reports false for a miss.
func (e *engine) cacheAnswer(now Time, ri int32, en *centry) bool {
	cfg := e.cache.cfg
	r := &e.reqs.items[ri]
	tc := now - e.m.Network // the client issued the read at tc
	have, exp, pending := en.at(tc)
	switch {
	case have && tc < exp:
		e.cacheHit(ri, false)
	case have && tc < exp+cfg.StaleWhileRevalidate:
		if !en.filling && !pending {
			en.filling = true
			e.refresh(now, ri)
		}
		e.cacheHit(ri, true)
	case pending && cfg.SingleFlight:
		e.countJoined(r)
		e.finishWaiter(ri, en.from, failNone)
	case en.filling && cfg.SingleFlight:
		if en.wTail < 0 {
			en.wHead = ri
		} else {
			e.reqs.items[en.wTail].next = ri
		}
		en.wTail = ri
		e.countJoined(r)
	default:
		return false
	}
	return true
}

// countJoined counts request r, which joined another read of its key (single-flight).
func (e *engine) countJoined(r *request) {
	if r.counted {
		e.streams[r.stream].out.CacheJoined++
	}
}

// finishWaiter gives request ri, which waited for another read of its key, that read's
// outcome at t, the time the answer reached the clients. A waiter shares the read's
// failure, as Go's singleflight hands its callers the leader's error, but its own client's
// deadline still holds: past it, the waiter timed out on its own.
func (e *engine) finishWaiter(ri int32, t Time, fail uint8) {
	r := &e.reqs.items[ri]
	if to := e.streams[r.stream].s.Client.Timeout; to > 0 && t > r.issue+to {
		t, fail = r.issue+to, failTimeout
	}
	e.finish(ri, t, fail)
	e.release(ri)
}

// cacheHit answers request ri from the cache, at the hit cost.
func (e *engine) cacheHit(ri int32, stale bool) {
	r := &e.reqs.items[ri]
	out := e.streams[r.stream].out
	if r.counted {
		out.CacheHits++
		if stale {
			out.CacheStale++
		}
	}
	e.finish(ri, r.issue+e.cache.cfg.HitCost, failNone)
	e.release(ri)
}

// refresh reads the key of request ri from the database in the background, to renew its
// expired entry.
func (e *engine) refresh(now Time, ri int32) {
	r := e.reqs.items[ri]
	rr := e.reqs.take()
	// counted only says whether send counts its database read in the stream's totals; a
	// refresh has no outcome of its own.
	e.reqs.items[rr] = request{issue: r.issue, done: now, stream: r.stream, next: -1, kind: reqRefresh, counted: r.counted, shard: r.shard}
	e.setKey(rr, e.keys[ri])
	e.keepVisits(rr, e.visits[ri])
	e.send(now, rr, e.visits[rr])
}

func (e *engine) countBackend(st *streamState, counted bool, now Time) {
	if counted {
		st.out.BackendReads++
	}
	if w := e.window(now); w >= 0 {
		st.out.Win[w].BackendReads++
	}
}

// cacheFilled handles the end of a database read that fills the cache (a miss or a
// refresh) at t: on success the entry is fresh for a TTL; either way the requests waiting
// for it get its outcome.
func (e *engine) cacheFilled(ri int32, t Time, fail uint8) {
	c := e.cache
	key := e.keys[ri]
	i := c.find(key)
	if i < 0 {
		if fail != failNone {
			return
		}
		if i = c.insert(key); i < 0 {
			return
		}
	}
	en := &c.ent[i]
	en.filling = false
	if fail == failNone {
		ttl := c.cfg.TTL
		if j := c.cfg.Jitter; j > 0 {
			ttl = Time(float64(ttl) * (1 + j*(2*e.aux.Float64()-1)))
		}
		if en.valid {
			en.prevFrom, en.prevExp, en.hasPrev = en.from, en.expires, true
		}
		en.valid, en.from, en.expires = true, t, t+ttl
	}
	for w := en.wHead; w >= 0; {
		next := e.reqs.items[w].next
		e.finishWaiter(w, t, fail)
		w = next
	}
	en.wHead, en.wTail = -1, -1
}
