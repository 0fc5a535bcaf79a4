// Package latch is the page latch, whole: its keys ([table] page_latch, page_rows), their
// checks and the resolver it registers with the scenario (keys.go), its engine side, a
// sim.Setting that attaches to the engine through sim.Core (latch.go), and its tests: the
// closed forms and the transcript of its story (testdata). docs/mitigations.md, "Hot
// index page", says what it models.
package latch

import (
	"fmt"

	"github.com/shardsim/shardsim/internal/splitmix"
	"github.com/shardsim/shardsim/internal/waitlist"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
)

// PageLatch is the table's B-tree leaf-page latch ([table] page_latch, docs/mitigations.md
// "Hot index page"): every write holds the latch of the leaf page its key falls in for
// Hold, one write at a time per page, before it is served.
//
// Which page. A shard's rows are kept in key order, Rows to a page. A write whose key is
// not below the greatest key written so far under the same prefix (every part but the
// last: a salt bucket, a tenant) appends: it goes to that prefix's rightmost page. (When
// that page fills, the next append splits it and the new rightmost page takes the appends:
// one page at the right edge is always the one being written, so the model keeps one latch
// for the edge.) A monotonic key (a time, a sequence, a time bucket) appends every write,
// so all of a prefix's inserts wait for that one latch, which passes at most 1/Hold writes
// a second. Any other write goes to the interior page of its last part divided by Rows:
// the last part is read as the row's position, which is right for a part that is unique
// per row (an id, a time), so a random key spreads its writes over the table's pages. A
// last part with few values that repeat over many rows (a category) is read the same way,
// so its values share a few latches where a database would give each value's run of rows
// its own end (docs/mitigations.md). The greatest key of each prefix is kept in a table of
// prefixSlots entries by hash; two prefixes that share an entry take turns at it (a write
// then looks like an append to the rightmost page of its own prefix), which bounds the
// memory whatever the number of prefixes.
//
// The wait for a page latch holds no core and no place in the node's queue, as a row
// lock's (mechanisms/locks); the latch is taken after the partition limit and a row lock, if any.
// With Poisson writes at rate λ to one page, the page is an M/D/1 queue: the mean wait is
// λ·Hold² / (2(1 − λ·Hold)) (latch_test.go checks it).
type PageLatch struct {
	Hold sim.Time // how long a write holds its page's latch
	Rows int64    // rows a page holds
}

// Waiter: a write waiting for its page's latch keeps its subrequest slot, its place in
// the page's queue and its page. 2 million of them (one page, 40,000 inserts a second
// against a cap of 20,000) peaked at 298 MB, against 214 MB for as many subrequests
// queued for a core: (298 - 35) / (214 - 35) = 1.5.
func (PageLatch) Waiter() float64 { return 1.5 }

// Couples keeps a run with a page latch on one engine: the latch is not split yet.
func (PageLatch) Couples() string { return "a page latch is not split yet" }

// Note says what the offered loads leave out of the page latch.
func (s PageLatch) Note() string {
	return fmt.Sprintf("the figures ignore the page latch: each write holds its leaf page's latch for %v (a page of %d rows), so the writes of a monotonic key pass at most %.0f a second per key prefix, whatever the cores", s.Hold, s.Rows, float64(sim.Second)/float64(s.Hold))
}

// prefixSlots is the size of the page latch's table of the greatest key per prefix.
const prefixSlots = 1 << 12

// evLatchRelease: a write's hold of its page's latch ends (subrequest slot).
var evLatchRelease = sim.NewEventKind()

// pageLatches is the page latch's state: the latches held now and their waiters, each
// subrequest's page and the time it asked for it, and the greatest key per prefix.
type pageLatches struct {
	set     PageLatch
	held    waitlist.Table  // the latches held now, by page identity, with their waiters
	links   []waitlist.Link // a waiting subrequest's place among its page's waiters, by slot
	page    []uint64        // by subrequest slot: the page its write goes to (0: it takes none)
	at      []sim.Time      // by subrequest slot: when it asked for its page's latch
	prefix  [prefixSlots]prefixEnd
	waits   []*sim.WaitCounter // by stream; nil for a stream that does not write
	counted []bool             // by subrequest slot: its request was issued after the warmup
	keys    []keyspace.Key     // by request slot: the key of its write, kept at its issue
}

// prefixEnd is the right end of one key prefix's rows: the prefix's hash (0: the entry is
// free) and its greatest last part so far.
type prefixEnd struct {
	prefix uint64
	last   uint64
}

// On turns the page latch on: it watches every new write subrequest of a point-write
// stream, holds writes at their nodes, and counts their waits by stream.
func (s PageLatch) On(c sim.Core) { s.start(c) }

// start turns the page latch on in c and returns its state.
func (s PageLatch) start(c sim.Core) *pageLatches {
	l := &pageLatches{set: s, held: waitlist.NewTable(0), waits: make([]*sim.WaitCounter, c.Streams())}
	for i := range l.waits {
		if c.Op(i) == sim.Write && c.Point(i) {
			l.waits[i] = c.NewWaits(i, "page_latch", "writes")
		}
	}
	c.WatchSubs(l)
	c.GateNodes(l)
	c.Register(l, evLatchRelease)
	return l
}

// Issue keeps the key of write request ri of stream i, which its stream's planner holds
// now: its attempts may be sent after later writes are planned (held by a pool or a rate
// limit, or retried).
func (l *pageLatches) Issue(c sim.Core, i int, ri int32) {
	if l.waits[i] == nil {
		return
	}
	for int(ri) >= len(l.keys) {
		l.keys = append(l.keys, keyspace.Key{})
	}
	l.keys[ri] = *c.LastKey(i)
}

// NewSub records the page of write subrequest si of stream i, the page of its request's
// key: kept at issue for a request in a slot, still the planner's for a solo, made as its
// request is issued (copies of a write, k > 0, are in other shards: each has its own
// pages).
func (l *pageLatches) NewSub(c sim.Core, i int, si int32) {
	for int(si) >= len(l.page) {
		l.page = append(l.page, 0)
		l.at = append(l.at, 0)
		l.links = append(l.links, waitlist.Link{})
		l.counted = append(l.counted, false)
	}
	l.page[si] = 0
	if l.waits[i] == nil {
		return
	}
	k := c.LastKey(i)
	if ri := c.SubRequest(si); ri >= 0 {
		k = &l.keys[ri]
	}
	l.page[si] = l.pageOf(k, c.SubShard(si))
}

// pageOf is the identity of the leaf page key k falls in on shard sh (never 0).
func (l *pageLatches) pageOf(k *keyspace.Key, sh int32) uint64 {
	parts := k.Parts()
	h := splitmix.Mix(uint64(sh) + 0x7f4a7c159e3779b9)
	var last uint64
	if n := len(parts); n > 0 {
		for _, p := range parts[:n-1] {
			h = splitmix.Mix(h ^ splitmix.Mix(p))
		}
		last = parts[n-1]
	}
	pe := &l.prefix[h&(prefixSlots-1)]
	if pe.prefix != h|1 { // a new prefix, or another's entry: its right end starts here
		*pe = prefixEnd{prefix: h | 1, last: last}
	}
	if last >= pe.last {
		pe.last = last
		return splitmix.Mix(h^0x5bd1e995) | 1 // the right edge
	}
	return splitmix.Mix(h^splitmix.Mix(last/uint64(l.set.Rows))) | 1
}

// Enter takes subrequest si's page latch at now, or queues it behind the holder.
func (l *pageLatches) Enter(c sim.Core, now sim.Time, si int32) bool {
	if int(si) >= len(l.page) || l.page[si] == 0 {
		return true
	}
	key := l.page[si]
	l.at[si] = now
	l.counted[si] = c.SubCounted(si)
	i := l.held.Find(key)
	if i < 0 {
		l.held.Insert(key)
		l.grant(c, now, si)
		return false
	}
	l.held.Slots[i].Waiters.PushBack(l.links, si)
	c.Hold(now)
	return false
}

// grant gives subrequest si its page's latch at now, for Hold, and counts its wait.
func (l *pageLatches) grant(c sim.Core, now sim.Time, si int32) {
	if w := l.waits[c.SubStream(si)]; w != nil {
		w.Add(l.counted[si], now-l.at[si])
	}
	c.Schedule(now+l.set.Hold, si, evLatchRelease)
}

// Handle ends subrequest si's hold at now: the latch goes to its page's oldest waiter, or
// is freed, and si goes on to its node's queue.
func (l *pageLatches) Handle(c sim.Core, now sim.Time, si int32) {
	i := l.held.Find(l.page[si])
	if next := l.held.Slots[i].Waiters.Head; next >= 0 {
		l.held.Slots[i].Waiters.Remove(l.links, next)
		c.Unhold()
		l.grant(c, now, next)
	} else {
		l.held.Remove(i)
	}
	c.Pass(now, si)
}
