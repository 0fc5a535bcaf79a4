// Package locks is row locks, whole: the engine side of row locks ([[streams]] lock, lock_timeout), a sim.Setting that
// attaches to the engine through sim.Core (locks.go), and what another setting may ask of
// them, the row a locked write locks (rows.go: ChooseRows, as a job queue's claims in
// mechanisms/queue choose theirs); their keys, declared, checked and resolved in keys.go, and the resolver
// that turns the resolved streams' locks into the setting; and their tests: the closed forms (M/G/1 for one row, the machine-repairman
// model for a closed loop's row) and the transcript of their story (testdata).
// docs/scenario.md ("Row locks", under `[[streams]]`) and docs/mitigations.md ("Row lock
// grant order", "Row lock wake-ups", "Row lock release at commit") say what
// they model.
//
// The keys lock and lock_timeout resolve into the stream (StreamSpec.Lock and LockTimeout)
// as it is resolved, since the closed loop's cycle, the estimates of compile and explain's
// notes read them there; claim and skip_locked are mechanisms/queue's.
package locks

import (
	"fmt"
	"math/rand/v2"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/waitlist"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
)

// The lock model. A write subrequest of a locked stream reaches its node and, past the
// partition limit ([keyspace.limits]), asks for the lock of its partition key (salt
// included: write sharding spreads one logical counter over salt buckets, each with its
// own lock). If the lock is free it takes it at once; otherwise it joins the key's list of
// waiters, holding no core and no place in the node's queue. The holder keeps the lock for
// a draw of Stream.Hold, then releases it, hands it to a waiter (the oldest, or
// under lock_grant = "random" one drawn at random), and only then
// goes on: through a page latch, if any, to the node's queue for a core and its CPU
// service (cost). Stream.Hold is therefore the time the row stays locked per write, which
// in a database is mostly spent off the CPU (the commit's log flush, the transaction's
// round trips), and one key serves at most 1/mean(hold) writes per second however many
// cores its node has. The wait for the lock is what databases report as row lock time
// (InnoDB's Innodb_row_lock_time, PostgreSQL's sessions with wait_event_type = 'Lock'). A
// write that has waited Stream.Timeout without the lock gives up and fails
// (sim.Core.GiveUp, for the cause TimedOut), as innodb_lock_wait_timeout does; the client
// may retry it. Reads take no locks.
//
// One key is thus an M/G/1 queue: arrivals of the key's writes, one server, service the
// lock's hold time (locks_test.go checks its mean wait against Pollaczek-Khinchine).
//
// With Stream.Wake (lock_wake_cost) a release costs the row a hand-off: a database wakes
// every waiter of the row when its holder commits, and all but one go back to sleep. A
// release that finds n waiters picks the next holder at once (in the grant order) but
// grants it the lock only n x Wake later; the row stays locked meanwhile, holding no core,
// and the writes that arrive then join its waiters. The hand-offs are serial, so a row
// whose releases find n waiters each serves at most 1/(mean(hold) + n x Wake) writes a
// second (wake_test.go). The waiter picked is no longer waiting: it does not give up.

// RowLocks turns row locks on for the streams that take them: Streams holds each stream's
// lock, by stream index (a zero Hold, or missing at the end: the stream takes none).
// Slots is the initial size of the table of locks held: about four times the locks held
// at once at the peak; 0: the minimum, 64.
type RowLocks struct {
	Streams []Stream
	Slots   int
	note    string // explain's note on the wake cost (Note)
}

// Stream is one stream's row lock: each of its write subrequests holds its partition key's
// lock for a draw of Hold (Mean 0: it takes none), waiting without a core in the order
// Grant says, and gives up after waiting Timeout (0: never). Each of its releases that
// finds n waiters keeps the row locked n x Wake more before the next holder has it
// (0: none).
type Stream struct {
	Hold    sim.Delay
	Timeout sim.Time
	Grant   Grant
	Wake    sim.Time
	Release Release
}

// Release is when a write of the stream lets its row's lock go.
type Release uint8

const (
	// ReleaseHold lets the lock go when its hold ends, before the write goes on to its
	// node's cores: the row is held for the hold alone.
	ReleaseHold Release = iota
	// ReleaseCommit keeps the lock through the write's wait for a core, its service and
	// whatever holds its completion after (its node's commit flush), and lets it go when
	// the write completes, as PostgreSQL lets a row go at COMMIT, after the commit's WAL
	// flush. The row is then held for hold + queueing + cost + flush.
	ReleaseCommit
)

// Grant is the order a row's waiters get its lock in when its holder, a write of the
// stream, releases it.
type Grant uint8

const (
	// GrantFIFO hands the lock to the oldest waiter: first come, first served.
	GrantFIFO Grant = iota
	// GrantRandom hands it to a waiter drawn uniformly among the row's waiters, from a
	// random stream of the releasing write's stream's own, so that FIFO's runs draw as
	// before. The draw walks the row's waiters (O(waiters): at most the stream's clients
	// in a closed loop, rate x lock_timeout with a timeout, rho^2/(1-rho) on average for
	// an open loop's one row at rho < 1 under exponential holds).
	GrantRandom
)

// Waiter: a lock's waiter is counted by the estimate with the locks
// (compile.Work.LockWaiters), nothing more here.
func (RowLocks) Waiter() float64 { return 0 }

// Couples keeps a run with row locks on one engine: the locks are not split yet.
func (RowLocks) Couples() string { return "row locks are not split yet" }

// Note is what explain's figures leave out of the wake cost (the resolver writes it; empty
// without lock_wake_cost): explain's note on a locked stream's cap, 1/mean(lock), is
// written with the closed loops' notes, stream by stream, from the resolved streams
// (compile), which do not know the wake cost.
func (s RowLocks) Note() string { return s.note }

// Lock states of a subrequest slot.
const (
	lockNone    uint8 = iota
	lockWaiting       // in its key's queue of waiters
	lockHeld          // holding its key's lock until its release event
	lockWaking        // picked at a release, granted after the hand-off (Stream.Wake)
	lockCommit        // past its hold, holding its key's lock until its write completes (ReleaseCommit)
)

// The row locks' events, on a subrequest slot: a write's hold of its row lock ends; a
// write waiting for a row lock gives up; a release's hand-off ends and the write picked
// gets the lock.
var (
	evLockRelease = sim.NewEventKind()
	evLockTimeout = sim.NewEventKind()
	evLockWake    = sim.NewEventKind()
)

// TimedOut is the failure cause of a write that waited longer than its lock_timeout for
// its row lock (sim.RegisterCause): the client retries it, and the figures read it as
// "lock".
var TimedOut = sim.RegisterCause(causeRank, "lock", true)

// causeRank places TimedOut among the registered failure causes: after a partition
// limit's throttle (mechanisms/limits), so that an attempt that met both failed as a lock
// timeout.
const causeRank = 1

// lockWait is the lock state of one subrequest slot (rowLocks.wait, by slot).
type lockWait struct {
	key   uint64   // the hash of the key whose lock it wants or holds
	at    sim.Time // when it asked for the lock
	state uint8
	on    bool // its stream takes row locks: the gate holds it
}

// rowLocks is the row-lock mechanism's state: the locks held now, and beside the
// engine's slots the lock state of each subrequest (wait, by subrequest slot) and the
// row each locked write names (rows, by request slot).
type rowLocks struct {
	waitlist.Table
	wait    []lockWait
	links   []waitlist.Link // a waiting subrequest's place among its key's waiters, by slot
	rows    []lockRow
	streams []*streamLocks // by stream; nil for a stream that takes none
	res     *metrics.LockResult
}

// lockRow is the partition key of a locked write, by request slot: its lock's identity,
// and its parts for the report of the hottest locks; attempt and next number the
// subrequests of its current attempt, the k-th of which takes lockKey(ri, k).
type lockRow struct {
	key     keyspace.Key
	hash    uint64
	attempt int
	next    int
}

// streamLocks is a locked stream's lock state and statistics.
type streamLocks struct {
	hold    sim.Sampler
	rng     *rand.Rand // hold times
	grant   *rand.Rand // the waiter granted at a release under GrantRandom; nil: FIFO
	commit  bool       // ReleaseCommit: the lock is let go when the write completes
	timeout sim.Time
	wake    sim.Time       // a release's hand-off per waiter (Stream.Wake); 0: none
	counts  sim.WaitCounts // waits, in the run's histogram layout (0: no wait)
	hot     *detect.SpaceSaving
	hotKeys []keyspace.Key
	hotShrd []int32
	topK    int
	rows    Rows // the rows its writes lock (ChooseRows); nil: each write its key's own
	out     *metrics.LockCounts
}

// On turns row locks on: each locked stream's requests take a request slot and their keys
// are kept at issue, and each of their subrequests asks for its row's lock at its node,
// after the partition limit and before any other node gate. Their figures are reported
// (metrics.LockResult), complete at the run's end.
func (s RowLocks) On(c sim.Core) {
	l := &rowLocks{Table: waitlist.NewTable(s.Slots), streams: make([]*streamLocks, c.Streams()),
		res: &metrics.LockResult{Streams: make([]*metrics.LockCounts, c.Streams())}}
	for i, ls := range s.Streams {
		if ls.Hold.Mean <= 0 {
			continue
		}
		if c.Op(i) != sim.Write || !c.Point(i) {
			panic(fmt.Sprintf("sim: stream %d has a lock, but only point writes take locks", i))
		}
		l.streams[i] = newStreamLocks(c, i, ls)
		l.res.Streams[i] = l.streams[i].out
		c.Slotted(i)
	}
	c.Report(l.res)
	for _, st := range l.streams {
		if st != nil && st.commit {
			// Once, for every stream that lets go at commit: after every hook that may hold
			// a completion (the commit flush's), whatever the order mechanisms are turned on.
			c.EndSubsLast(commits{l})
			break
		}
	}
	c.WatchSubs(l)
	c.GateNodesFirst(l)
	c.Register(releases{l}, evLockRelease)
	c.Register(timeouts{l}, evLockTimeout)
	c.Register(wakes{l}, evLockWake)
}

func newStreamLocks(c sim.Core, i int, s Stream) *streamLocks {
	topK := c.TopK()
	capacity := max(25*topK, 256) // as detection's sketches (sim/observe.go)
	var grant *rand.Rand
	if s.Grant == GrantRandom {
		grant = rand.New(rand.NewPCG(c.Seed(), c.StreamSeed(i, 7)))
	}
	return &streamLocks{
		grant: grant, commit: s.Release == ReleaseCommit,
		hold: sim.NewSampler(s.Hold), rng: rand.New(rand.NewPCG(c.Seed(), c.StreamSeed(i, 5))),
		timeout: s.Timeout, wake: s.Wake, counts: sim.NewWaitCounts(),
		hot: detect.NewSpaceSaving(capacity), hotKeys: make([]keyspace.Key, capacity), hotShrd: make([]int32, capacity), topK: topK,
		out: &metrics.LockCounts{},
	}
}

// Issue records the partition key the request in slot ri of stream i writes: the key the
// stream's point planner planned last.
func (l *rowLocks) Issue(c sim.Core, i int, ri int32) {
	st := l.streams[i]
	if st == nil {
		return
	}
	for int(ri) >= len(l.rows) {
		l.rows = append(l.rows, lockRow{})
	}
	k := c.LastKey(i)
	h := k.Hash()
	if st.rows != nil {
		h = st.rows.Row(h)
	}
	l.rows[ri] = lockRow{key: *k, hash: h}
}

// NewSub gives subrequest si of stream i its lock: the k-th subrequest of its request's
// attempt takes lockKey(ri, k).
func (l *rowLocks) NewSub(c sim.Core, i int, si int32) {
	for int(si) >= len(l.wait) {
		l.wait = append(l.wait, lockWait{})
		l.links = append(l.links, waitlist.Link{})
	}
	if l.streams[i] == nil {
		l.wait[si].on = false
		return
	}
	ri := c.SubRequest(si)
	row := &l.rows[ri]
	if a := c.SubAttempt(si); row.attempt != a {
		row.attempt, row.next = a, 0
	}
	l.wait[si] = lockWait{key: l.lockKey(ri, row.next), on: true}
	row.next++
}

// lockKey is the lock of the k-th subrequest of request ri: its row's, or, for a write to
// several copies of a row ([keyspace.copies]), a lock of its own for each further copy.
func (l *rowLocks) lockKey(ri int32, k int) uint64 {
	h := l.rows[ri].hash
	if k > 0 {
		h = detect.Hash64(h + uint64(k))
	}
	return h
}

// Enter handles write subrequest si, which reached its node at now and passed the
// partition limit: it asks for its key's lock, which it takes at once if it is free, or
// queues for. Either way the gate holds it until its hold ends (Handle).
func (l *rowLocks) Enter(c sim.Core, now sim.Time, si int32) bool {
	w := &l.wait[si]
	if !w.on {
		return true
	}
	w.at = now
	key := w.key
	i := l.Find(key)
	if i < 0 {
		l.Insert(key)
		l.grant(c, now, si)
		return false
	}
	w.state = lockWaiting
	l.Slots[i].Waiters.PushBack(l.links, si)
	ri := c.SubRequest(si)
	st := l.streams[c.ReqStream(ri)]
	if c.ReqCounted(ri) {
		st.out.Waited++
		slot, fresh := st.hot.Add(key)
		if fresh {
			st.hotKeys[slot] = l.rows[ri].key
		}
		st.hotShrd[slot] = c.SubShard(si)
	}
	if to := st.timeout; to > 0 {
		c.Schedule(now+to, si, evLockTimeout)
	}
	c.Hold(now)
	return false
}

// grant gives subrequest si its key's lock at now, for a draw of its stream's hold time.
func (l *rowLocks) grant(c sim.Core, now sim.Time, si int32) {
	w := &l.wait[si]
	w.state = lockHeld
	ri := c.SubRequest(si)
	st := l.streams[c.ReqStream(ri)]
	counted := c.ReqCounted(ri)
	st.waited(counted, now-w.at)
	hold := st.hold.Draw(st.rng)
	if counted {
		st.out.Holds++
		st.out.HoldSum += float64(hold)
	}
	c.Schedule(now+hold, si, evLockRelease)
}

// waited records a wait for a lock, which ended (granted or given up) after wait.
func (st *streamLocks) waited(counted bool, wait sim.Time) {
	if !counted {
		return
	}
	out := st.out
	out.Waits++
	out.WaitSum += float64(wait)
	out.WaitMax = max(out.WaitMax, wait)
	st.counts.Add(wait)
}

// releases, timeouts and wakes handle the row locks' three kinds of event: the end of a
// hold, a waiter's lock timeout (which may find its slot granted or reused since: stale),
// and the end of a release's hand-off.
type (
	releases struct{ *rowLocks }
	timeouts struct{ *rowLocks }
	wakes    struct{ *rowLocks }
)

// Handle ends subrequest si's hold of its lock at at.
func (l releases) Handle(c sim.Core, at sim.Time, si int32) { l.release(c, at, si) }

// Handle ends the wait of the waiter in slot si at at, its lock timeout.
func (l timeouts) Handle(c sim.Core, at sim.Time, si int32) { l.timeout(c, at, si) }

// Handle grants the lock at at to the waiter in slot si, which a release picked (handOff):
// its slot stayed held at the gate since, so the event is never stale.
func (l wakes) Handle(c sim.Core, at sim.Time, si int32) {
	c.Unhold()
	l.grant(c, at, si)
}

// release handles the end of subrequest si's hold: unless its stream lets its lock go at
// commit, the lock goes to one of the key's waiters, the oldest or (GrantRandom) one drawn
// by si's stream, at once or, with si's stream's wake cost, after the hand-off (handOff),
// or is freed; and si goes on to its node's cores.
func (l *rowLocks) release(c sim.Core, now sim.Time, si int32) {
	if l.streams[c.ReqStream(c.SubRequest(si))].commit {
		l.wait[si].state = lockCommit
	} else {
		l.unlock(c, now, si)
	}
	c.Pass(now, si)
}

// unlock lets subrequest si's lock go at now: to the next waiter, or freed.
func (l *rowLocks) unlock(c sim.Core, now sim.Time, si int32) {
	w := &l.wait[si]
	w.state, w.on = lockNone, false
	i := l.Find(w.key)
	ent := &l.Slots[i]
	if next := ent.Waiters.Head; next >= 0 {
		st := l.streams[c.ReqStream(c.SubRequest(si))]
		if r := st.grant; r != nil {
			next = l.drawWaiter(r, ent.Waiters)
		}
		if st.wake > 0 {
			l.handOff(c, now, st.wake, &ent.Waiters, next)
		} else {
			ent.Waiters.Remove(l.links, next)
			c.Unhold()
			l.grant(c, now, next)
		}
	} else {
		l.Remove(i)
	}
}

// commits lets the locks of the streams under ReleaseCommit go when their writes complete:
// a sim.SubEnd put last (Core.EndSubsLast), after every hook that may hold a completion,
// so a write's completion there comes after its commit flush, whichever mechanism is
// turned on first; and, when a full queue refuses the write after its hold, at the refusal.
type commits struct{ *rowLocks }

// End lets subrequest si's lock go if it holds one until it completes, and lets si complete.
func (l commits) End(c sim.Core, now sim.Time, si int32) bool {
	l.Dropped(c, now, si)
	return true
}

// Dropped lets subrequest si's lock go if it holds one until it completes: si was refused
// by its node's full queue.
func (l commits) Dropped(c sim.Core, now sim.Time, si int32) {
	if int(si) < len(l.wait) && l.wait[si].state == lockCommit {
		l.unlock(c, now, si)
	}
}

// handOff wakes the n waiters of list ws at a release at now: next, the one the grant
// order picked, leaves the list and gets the lock n x wake later (wakes.Handle), the row
// staying locked meanwhile. Counting the waiters walks the list (O(waiters), as
// drawWaiter).
func (l *rowLocks) handOff(c sim.Core, now, wake sim.Time, ws *waitlist.List, next int32) {
	n := 0
	for x := ws.Head; x >= 0; x = l.links[x].Next {
		n++
	}
	ws.Remove(l.links, next)
	l.wait[next].state = lockWaking
	c.Schedule(now+sim.Time(n)*wake, next, evLockWake)
}

// drawWaiter is a waiter of list ws, which has one, drawn uniformly with r: one pass to
// count them and one to the draw's place.
func (l *rowLocks) drawWaiter(r *rand.Rand, ws waitlist.List) int32 {
	n := 0
	for x := ws.Head; x >= 0; x = l.links[x].Next {
		n++
	}
	x := ws.Head
	for k := r.IntN(n); k > 0; k-- {
		x = l.links[x].Next
	}
	return x
}

// timeout handles the lock timeout of the waiter in slot si at now: if it is still
// waiting (the event is not stale), it gives up and its request's attempt fails.
func (l *rowLocks) timeout(c sim.Core, now sim.Time, si int32) {
	w := &l.wait[si]
	if w.state != lockWaiting {
		return
	}
	ri := c.SubRequest(si)
	st := l.streams[c.ReqStream(ri)]
	if w.at+st.timeout != now {
		return // the slot holds a later waiter, whose own event is still to come
	}
	l.Slots[l.Find(w.key)].Waiters.Remove(l.links, si)
	c.Unhold()
	w.state, w.on = lockNone, false
	st.waited(c.ReqCounted(ri), now-w.at)
	c.GiveUp(now, si, w.at, TimedOut)
}

// WrapUp puts every locked stream's lock statistics into its report.
func (l releases) WrapUp(sim.Core) {
	for _, st := range l.streams {
		if st != nil {
			st.report()
		}
	}
}

// report puts the stream's lock statistics into its report.
func (st *streamLocks) report() {
	out := st.out
	out.Wait = st.counts.Histogram()
	for _, k := range st.hot.Top(st.topK) {
		out.Hot = append(out.Hot, sim.KeyCount{
			Values: append([]uint64(nil), st.hotKeys[k.Slot].Parts()...),
			Count:  k.Count, Error: k.Error, Shard: int(st.hotShrd[k.Slot]),
		})
	}
}
