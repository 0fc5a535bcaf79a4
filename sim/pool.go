package sim

import (
	"fmt"

	"github.com/shardsim/shardsim/internal/waitlist"
)

// Pool is a client connection pool ([[streams]] pool, docs/mitigations.md "Connection
// pool"): at most Size of the stream's requests are in flight at once, each holding a
// connection from the moment its first attempt leaves the client until its outcome
// reaches the client (its retries included); the others wait for a connection in the
// order they were issued. A request served from the cache takes none.
//
// The pool lives in the client, so it decides in the client's time: a request issued at
// t takes a free connection at t, and a connection freed when an outcome reaches the
// client at t goes to the oldest waiter at t, whose first attempt reaches the nodes a
// network delay later. (The engine handles a request when its first attempt would reach
// the nodes, a network delay after its issue; the release is handled at the same offset,
// so the two keep the client's order.)
//
// In front of one M/M/1 node with no network delay, the client and the node are one M/M/1
// system whose requests beyond Size wait in the pool: the mean wait for a connection is
// E[(n - Size)+]/λ = ρ^(Size+1) / ((1 - ρ) λ), and a share ρ^Size of the requests wait
// (pool_test.go checks both).
type Pool struct {
	Stream int    // the stream it serves
	Name   string // that stream's name, for Note
	Size   int    // connections
}

// Waiter: a request waiting for a connection keeps its request slot with its visits.
// quickstart's get_profile with a pool of 2 over 30 minutes stopped with 2 million waiting
// at a peak of 448 MB, against 214 MB for as many subrequests queued for a core:
// (448 - 35) / (214 - 35) = 2.3.
func (Pool) Waiter() float64 { return 2.3 }

// Note says what the offered loads leave out of the pool.
func (p Pool) Note() string {
	return fmt.Sprintf("the figures ignore %s's connection pool of %d: requests beyond %d in flight wait for a connection in the client, not at the nodes", p.Name, p.Size, p.Size)
}

// evPoolRelease: a connection of a pool is freed (the pool's index among the engine's).
var evPoolRelease = newEventKind()

// connPools are the run's connection pools, one per stream that has one.
type connPools struct {
	noHooks
	pools []*connPool
}

// connPool is one stream's pool: its connections in use, the requests waiting for one
// (oldest first, with the time each was issued), whether each request slot holds a
// connection, and its waits.
type connPool struct {
	index   int32 // its index in connPools.pools, the idx of its release events
	size    int
	busy    int
	waiting waitlist.FIFO
	holds   []bool // by request slot
	waits   *waitCounter
}

// on turns stream p.Stream's pool on: a gate before its sends, and the release event.
func (p Pool) on(e *engine) {
	all, ok := e.on[evPoolRelease].(*connPools)
	if !ok {
		all = &connPools{}
		e.register(all, false, evPoolRelease)
	}
	c := &connPool{index: int32(len(all.pools)), size: p.Size, waits: e.newWaits(p.Stream, "pool", "requests")}
	all.pools = append(all.pools, c)
	e.gateStream(p.Stream, c)
}

// enter gives request ri a connection, or has it wait for one.
func (c *connPool) enter(e *engine, now Time, ri int32) bool {
	for int(ri) >= len(c.holds) {
		c.holds = append(c.holds, false)
	}
	r := &e.reqs.items[ri]
	if c.busy < c.size {
		c.busy++
		c.holds[ri] = true
		c.waits.add(r.counted, 0)
		return true
	}
	c.waiting.Push(ri)
	if e.queued++; e.queued > e.maxQueued && !e.stopped {
		e.saturate(now)
	}
	return false
}

// leave frees request ri's connection when its outcome reaches the client at t: the
// release is handled a network delay later, as the pool's arrivals are.
func (c *connPool) leave(e *engine, t Time, ri int32) {
	if int(ri) >= len(c.holds) || !c.holds[ri] {
		return
	}
	c.holds[ri] = false
	e.h.pushKind(t+e.m.Network, c.index, evPoolRelease)
}

// handle frees a connection of pool ev.idx: the oldest waiter takes it, and is sent.
func (all *connPools) handle(e *engine, ev event) {
	c := all.pools[ev.idx]
	if c.waiting.Len() == 0 {
		c.busy--
		return
	}
	ri := c.waiting.Pop()
	e.queued--
	c.holds[ri] = true
	r := &e.reqs.items[ri]
	c.waits.add(r.counted, ev.at-e.m.Network-r.issue)
	e.sendHeld(ev.at, ri)
}
