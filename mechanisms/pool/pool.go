// Package pool is the client connection pool, whole: its key ([[streams]] pool), its
// checks and the resolver it registers with the scenario (keys.go), its engine side, a
// sim.Setting that attaches to the engine through sim.Core (pool.go), and its tests: the
// closed forms and the transcript of its story (testdata). docs/mitigations.md,
// "Connection pool", says what it models.
package pool

import (
	"fmt"

	"github.com/shardsim/shardsim/internal/waitlist"
	"github.com/shardsim/shardsim/sim"
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

// Couples keeps a run with a connection pool on one engine: the pool, which the answers
// of every node free, is not split yet.
func (Pool) Couples() string { return "a connection pool is not split yet" }

// Note says what the offered loads leave out of the pool.
func (p Pool) Note() string {
	return fmt.Sprintf("the figures ignore %s's connection pool of %d: requests beyond %d in flight wait for a connection in the client, not at the nodes", p.Name, p.Size, p.Size)
}

// evPoolRelease: a connection of a pool is freed (the pool's index among the engine's).
var evPoolRelease = sim.NewEventKind()

// connPools are the run's connection pools, one per stream that has one.
type connPools struct {
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
	waits   *sim.WaitCounter
}

// On turns stream p.Stream's pool on: a gate before its sends, and the release event.
func (p Pool) On(c sim.Core) { p.start(c) }

// start turns the pool on in c and returns the run's pools.
func (p Pool) start(c sim.Core) *connPools {
	all, ok := c.Handler(evPoolRelease).(*connPools)
	if !ok {
		all = &connPools{}
		c.Register(all, evPoolRelease)
	}
	pc := &connPool{index: int32(len(all.pools)), size: p.Size, waits: c.NewWaits(p.Stream, "pool", "requests")}
	all.pools = append(all.pools, pc)
	c.GateStream(p.Stream, pc)
	return all
}

// Enter gives request ri a connection, or has it wait for one.
func (pc *connPool) Enter(c sim.Core, now sim.Time, ri int32) bool {
	for int(ri) >= len(pc.holds) {
		pc.holds = append(pc.holds, false)
	}
	if pc.busy < pc.size {
		pc.busy++
		pc.holds[ri] = true
		pc.waits.Add(c.ReqCounted(ri), 0)
		return true
	}
	pc.waiting.Push(ri)
	c.Hold(now)
	return false
}

// Leave frees request ri's connection when its outcome reaches the client at t: the
// release is handled a network delay later, as the pool's arrivals are.
func (pc *connPool) Leave(c sim.Core, t sim.Time, ri int32) {
	if int(ri) >= len(pc.holds) || !pc.holds[ri] {
		return
	}
	pc.holds[ri] = false
	c.Schedule(t+c.Network(), pc.index, evPoolRelease)
}

// Handle frees a connection of pool idx at now: the oldest waiter takes it, and is sent.
func (all *connPools) Handle(c sim.Core, now sim.Time, idx int32) {
	pc := all.pools[idx]
	if pc.waiting.Len() == 0 {
		pc.busy--
		return
	}
	ri := pc.waiting.Pop()
	c.Unhold()
	pc.holds[ri] = true
	pc.waits.Add(c.ReqCounted(ri), now-c.Network()-c.ReqIssue(ri))
	c.SendHeld(now, ri)
}
