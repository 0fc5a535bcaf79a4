// Package cache is the client-side read cache (docs/mitigations.md, "Cache"): a
// read-through LRU in front of the database, shared by the read streams that use it, with
// a TTL and its jitter, single-flight and stale-while-revalidate, turned on and off by
// actions. Its keys ([cache], keys.go) are declared and checked here; its engine side is a
// sim.Setting that takes its streams' requests as they are issued (sim.RequestTaker).
package cache

import (
	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/waitlist"
	"github.com/shardsim/shardsim/sim"
)

// Cache is the setting of a scenario's cache: what it is, the streams whose reads go
// through it (by index) and the actions that turn it on or off.
type Cache struct {
	Settings Settings
	Streams  []int
	Switches []Switch
}

// Settings are a read-through cache in front of the database, shared by every read stream
// that uses it. It holds Capacity keys with LRU eviction. A read of a fresh key is a hit:
// it costs HitCost at the client and never reaches a node. A miss reads the database and
// then stores the key for TTL, stretched by a uniform factor in [1-Jitter, 1+Jitter].
type Settings struct {
	Capacity int
	TTL      sim.Time
	Jitter   float64
	HitCost  sim.Time
	// SingleFlight makes concurrent misses of one key wait for the one database read in
	// flight instead of sending their own.
	SingleFlight bool
	// StaleWhileRevalidate serves an expired key for up to this long after its expiry, at
	// hit cost, while one database read refreshes it. 0: expired keys are misses.
	StaleWhileRevalidate sim.Time
	// Off starts the run with the cache disabled, so that an action can turn it on (Switch).
	Off bool
}

// Switch turns the cache on or off at At (client time): the reads that reach the nodes
// from At plus the network delay on see it so.
type Switch struct {
	At sim.Time
	On bool
}

// evSwitch is the event of a Switch, its index in Cache.Switches.
var evSwitch = sim.NewEventKind()

// On sets up an empty cache in c, takes its streams' requests and reports their counts
// (metrics.CacheResult).
func (k Cache) On(c sim.Core) {
	s := newState(&k)
	s.res = &metrics.CacheResult{Streams: make([]metrics.CacheCounts, c.Streams())}
	for _, i := range k.Streams {
		c.TakeStream(i, s)
		s.res.Streams[i].Backend = make([]int64, c.Windows())
	}
	c.Report(s.res)
	if len(k.Switches) > 0 {
		c.Register(s, evSwitch)
		for i, w := range k.Switches {
			if w.At < c.Duration() {
				c.Schedule(w.At+c.Network(), int32(i), evSwitch)
			}
		}
	}
}

// Note says what explain's figures leave out: the cache's hits.
func (Cache) Note() string {
	return "the figures ignore the cache: every read is counted as reaching the database (its hit ratio is known only by running)"
}

// Waiter is 0: the cache holds no request before the nodes' queues (its entries are
// FixedBytes).
func (Cache) Waiter() float64 { return 0 }

// Couples keeps a run with a client-side cache on one engine: the cache is not split
// yet.
func (Cache) Couples() string { return "a client-side read cache is not split yet" }

// bytesPerEntry is an entry of the cache: a key, four times, its LRU and single-flight
// links.
const bytesPerEntry = 64

// FixedBytes is the memory a run's cache allocates when the engine is built: its
// Capacity entries and an index of the least power of two at or above twice as many (at
// least 8), of 4 bytes a slot.
func (k Cache) FixedBytes() float64 {
	n := k.Settings.Capacity
	if n <= 0 {
		return 0
	}
	index := 8
	for index < 2*n {
		index *= 2
	}
	return float64(n)*bytesPerEntry + float64(index)*4
}

// state is a run's cache: a fixed number of entries in an LRU list, found through an
// open-addressing index, so that a lookup, an insertion or an eviction never allocates.
type state struct {
	cfg      *Settings
	switches []Switch
	on       bool
	ent      []entry
	lru      waitlist.List   // the entries, the most recently used first
	links    []waitlist.Link // the entries' places in lru, by entry
	index    []int32         // linear probing; entry+1, 0 when empty
	mask     uint64
	used     int
	// next is, by request slot, the next request waiting for the same read (single-flight),
	// or -1.
	next []int32
	res  *metrics.CacheResult // the streams' counts, by stream
}

type entry struct {
	key uint64
	// The value reached the client at from and expires at expires (client times); the
	// value it replaced, if any, is what reads issued before from still see.
	from, expires     sim.Time
	prevFrom, prevExp sim.Time
	hasPrev           bool
	wHead, wTail      int32 // requests waiting for the read in flight (single-flight)
	valid             bool  // holds a value (which may have expired)
	filling           bool  // a database read that will fill it is in flight
}

// at returns what the client sees of the entry at tc: have, it has a value, which expires
// at exp; pending, a newer one is on its way to it, which it has at en.from.
func (en *entry) at(tc sim.Time) (have bool, exp sim.Time, pending bool) {
	have, exp = en.valid && tc >= en.from, en.expires
	pending = en.valid && !have
	if pending && en.hasPrev && tc >= en.prevFrom {
		have, exp = true, en.prevExp
	}
	return have, exp, pending
}

func newState(k *Cache) *state {
	c := &k.Settings
	size := uint64(1)
	for size < uint64(2*c.Capacity) {
		size *= 2
	}
	return &state{cfg: c, switches: k.Switches, on: !c.Off, ent: make([]entry, c.Capacity), lru: waitlist.Empty,
		links: make([]waitlist.Link, c.Capacity), index: make([]int32, size), mask: size - 1}
}

// Handle applies switch idx.
func (s *state) Handle(_ sim.Core, _ sim.Time, idx int32) { s.on = s.switches[idx].On }

func (s *state) slot(key uint64) uint64 { return detect.Hash64(key) & s.mask }

// find returns key's entry, or -1.
func (s *state) find(key uint64) int32 {
	for p := s.slot(key); ; p = (p + 1) & s.mask {
		i := s.index[p]
		if i == 0 {
			return -1
		}
		if s.ent[i-1].key == key {
			return i - 1
		}
	}
}

// insert adds an empty entry for key (which must be absent), evicting the least recently
// used entry that no read is filling when the cache is full. It returns -1 when every
// entry is being filled.
func (s *state) insert(key uint64) int32 {
	var i int32
	if s.used < len(s.ent) {
		i = int32(s.used)
		s.used++
	} else {
		i = s.lru.Tail
		for i >= 0 && s.ent[i].filling {
			i = s.links[i].Prev
		}
		if i < 0 {
			return -1
		}
		s.unindex(s.ent[i].key)
		s.lru.Remove(s.links, i)
	}
	s.ent[i] = entry{key: key, wHead: -1, wTail: -1}
	p := s.slot(key)
	for s.index[p] != 0 {
		p = (p + 1) & s.mask
	}
	s.index[p] = i + 1
	s.lru.PushFront(s.links, i)
	return i
}

// unindex removes key from the index by backward-shift deletion, which keeps every other
// key reachable from its home slot without tombstones.
func (s *state) unindex(key uint64) {
	p := s.slot(key)
	for s.ent[s.index[p]-1].key != key {
		p = (p + 1) & s.mask
	}
	for q := (p + 1) & s.mask; s.index[q] != 0; q = (q + 1) & s.mask {
		home := s.slot(s.ent[s.index[q]-1].key)
		// The entry at q may move to the hole at p unless its home lies cyclically in (p, q].
		if (q-home)&s.mask >= (q-p)&s.mask {
			s.index[p] = s.index[q]
			p = q
		}
	}
	s.index[p] = 0
}

// touch marks entry i as the most recently used.
func (s *state) touch(i int32) {
	if s.lru.Head != i {
		s.lru.Remove(s.links, i)
		s.lru.PushFront(s.links, i)
	}
}

// Take looks up the key of read request ri, whose database read would reach its node
// now. The cache sits with the client: it is consulted when the client issues the read
// (now - network) and a value is in it from the time the database's answer reaches the
// client. It reports true when the cache answered the read or the read waits for another
// read of its key; false when it must read the database (a miss, which then fills the
// cache), or the cache is off.
func (s *state) Take(c sim.Core, now sim.Time, ri int32) bool {
	if !s.on {
		return false
	}
	key := c.ReqKey(ri)
	i := s.find(key)
	if i >= 0 {
		s.touch(i)
		if s.answer(c, now, ri, &s.ent[i]) {
			return true
		}
	} else {
		i = s.insert(key)
	}
	if i >= 0 {
		s.ent[i].filling = true
	}
	c.Lead(ri) // Sent counts its database read (not a miss the rate limit turns away)
	return false
}

// Sent counts a database read of request ri, which the cache leads or sent in the
// background, reaching the nodes at now.
func (s *state) Sent(c sim.Core, now sim.Time, ri int32) {
	n := &s.res.Streams[c.ReqStream(ri)]
	if c.ReqCounted(ri) {
		n.BackendReads++
	}
	if w := c.Window(now); w >= 0 {
		n.Backend[w]++
	}
}

// answer answers read request ri, whose key has entry en, if the entry can: a hit (fresh,
// or stale while a refresh is sent), or, with single-flight, a join of the read in flight
// or of the value on its way to the client. It reports false for a miss.
func (s *state) answer(c sim.Core, now sim.Time, ri int32, en *entry) bool {
	cfg := s.cfg
	tc := now - c.Network() // the client issued the read at tc
	have, exp, pending := en.at(tc)
	switch {
	case have && tc < exp:
		s.hit(c, ri, false)
	case have && tc < exp+cfg.StaleWhileRevalidate:
		if !en.filling && !pending {
			en.filling = true
			c.SendBackground(now, ri) // the refresh
		}
		s.hit(c, ri, true)
	case pending && cfg.SingleFlight:
		s.countJoined(c, ri)
		finishWaiter(c, ri, en.from, sim.OK)
	case en.filling && cfg.SingleFlight:
		for int(ri) >= len(s.next) {
			s.next = append(s.next, -1)
		}
		s.next[ri] = -1
		if en.wTail < 0 {
			en.wHead = ri
		} else {
			s.next[en.wTail] = ri
		}
		en.wTail = ri
		s.countJoined(c, ri)
	default:
		return false
	}
	return true
}

// countJoined counts request ri, which joined another read of its key (single-flight).
func (s *state) countJoined(c sim.Core, ri int32) {
	if c.ReqCounted(ri) {
		s.res.Streams[c.ReqStream(ri)].Joined++
	}
}

// finishWaiter gives request ri, which waited for another read of its key, that read's
// outcome at t, the time the answer reached the clients. A waiter shares the read's
// failure, as Go's singleflight hands its callers the leader's error, but its own client's
// deadline still holds: past it, the waiter timed out on its own.
func finishWaiter(c sim.Core, ri int32, t sim.Time, out sim.Outcome) {
	issue := c.ReqIssue(ri)
	if to := c.ClientTimeout(c.ReqStream(ri)); to > 0 && t > issue+to {
		t, out = issue+to, sim.TimedOut
	}
	c.Answer(ri, t, out)
}

// hit answers request ri from the cache, at the hit cost.
func (s *state) hit(c sim.Core, ri int32, stale bool) {
	if c.ReqCounted(ri) {
		n := &s.res.Streams[c.ReqStream(ri)]
		n.Hits++
		if stale {
			n.Stale++
		}
	}
	c.Answer(ri, c.ReqIssue(ri)+s.cfg.HitCost, sim.OK)
}

// Led handles the end of a database read that fills the cache (a miss or a refresh) at t:
// on success the entry is fresh for a TTL; either way the requests waiting for it get its
// outcome.
func (s *state) Led(c sim.Core, ri int32, t sim.Time, out sim.Outcome) {
	key := c.ReqKey(ri)
	i := s.find(key)
	if i < 0 {
		if out != sim.OK {
			return
		}
		if i = s.insert(key); i < 0 {
			return
		}
	}
	en := &s.ent[i]
	en.filling = false
	if out == sim.OK {
		ttl := s.cfg.TTL
		if j := s.cfg.Jitter; j > 0 {
			ttl = sim.Time(float64(ttl) * (1 + j*(2*c.Aux().Float64()-1)))
		}
		if en.valid {
			en.prevFrom, en.prevExp, en.hasPrev = en.from, en.expires, true
		}
		en.valid, en.from, en.expires = true, t, t+ttl
	}
	for w := en.wHead; w >= 0; {
		next := s.next[w]
		finishWaiter(c, w, t, out)
		w = next
	}
	en.wHead, en.wTail = -1, -1
}
