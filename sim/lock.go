package sim

import (
	"math/rand/v2"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/internal/waitlist"
	"github.com/shardsim/shardsim/keyspace"
)

// This file holds row locks (Stream.Lock); closed-loop clients (Stream.Clients) are in
// closed.go.
//
// The lock model. A write subrequest of a locked stream reaches its node and asks for the
// lock of its partition key (salt included: write sharding spreads one logical counter
// over salt buckets, each with its own lock). If the lock is free it takes it at once;
// otherwise it joins the key's FIFO of waiters, holding no core and no place in the node's
// queue. The holder keeps the lock for a draw of Stream.Lock, then releases it, hands it to
// the oldest waiter, and only then queues for a core and takes its CPU service (cost).
// A partition limit ([keyspace.limits]) is checked before the lock.
// Stream.Lock is therefore the time the row stays locked per write, which in a database is
// mostly spent off the CPU (the commit's log flush, the transaction's round trips), and
// one key serves at most 1/mean(lock) writes per second however many cores its node has.
// The wait for the lock is what databases report as row lock time (InnoDB's
// Innodb_row_lock_time, PostgreSQL's sessions with wait_event_type = 'Lock'). A write that
// has waited Stream.LockTimeout without the lock gives up and fails (failLock), as
// innodb_lock_wait_timeout does; the client may retry it. Reads take no locks.
//
// One key is thus an M/G/1 queue: arrivals of the key's writes, one server, service the
// lock's hold time (queue_test.go checks its mean wait against Pollaczek-Khinchine).

// Lock states of a subrequest slot.
const (
	lockNone    uint8 = iota
	lockWaiting       // in its key's queue of waiters
	lockHeld          // holding its key's lock until its release event
	lockPassed        // released, and reaching its node's cores: it passed the partition limit before the lock
)

// lockWait is the lock state of one subrequest slot (rowLocks.wait, by slot).
type lockWait struct {
	key   uint64 // the hash of the key whose lock it wants or holds
	at    Time   // when it asked for the lock
	state uint8
}

// rowLocks is the row-lock mechanism's state: the locks held now, and beside the
// engine's slots the lock state of each subrequest (wait, by subrequest slot) and the
// row each locked write names (rows, by request slot).
type rowLocks struct {
	waitlist.Table
	wait  []lockWait
	links []waitlist.Link // a waiting subrequest's place among its key's waiters, by slot
	rows  []lockRow
}

// lockRow is the partition key of a locked write, by request slot: its lock's identity,
// and its parts for the report of the hottest locks.
type lockRow struct {
	key  keyspace.Key
	hash uint64
}

// streamLocks is a locked stream's lock state and statistics.
type streamLocks struct {
	hold    delaySampler
	rng     *rand.Rand // hold times
	timeout Time
	counts  []int64 // waits, in runLayout's buckets of microseconds (0: no wait)
	hot     *detect.SpaceSaving
	hotKeys []keyspace.Key
	hotShrd []int32
	topK    int
	claim   claims // a job queue's claims (queue.go); zero for a stream whose key names its row
}

func newStreamLocks(m *Model, s *Stream) *streamLocks {
	topK := m.Detect.TopK
	if topK <= 0 {
		topK = detect.DefaultTopK
	}
	capacity := max(25*topK, 256) // as detection's sketches (observe.go)
	return &streamLocks{
		hold: newDelaySampler(s.Lock), rng: rand.New(rand.NewPCG(m.Seed, streamSeed(s.Name, 5))),
		timeout: s.LockTimeout, counts: make([]int64, runLayout.countsN),
		hot: detect.NewSpaceSaving(capacity), hotKeys: make([]keyspace.Key, capacity), hotShrd: make([]int32, capacity), topK: topK,
	}
}

// setLockRow records the partition key the request in slot ri writes: the key the
// stream's point planner planned last.
func (e *engine) setLockRow(ri int32, st *streamState) {
	for int(ri) >= len(e.locks.rows) {
		e.locks.rows = append(e.locks.rows, lockRow{})
	}
	k := st.point.LastKey()
	e.locks.rows[ri] = lockRow{key: *k, hash: st.locks.claim.rowOf(k.Hash())}
}

// lockKey is the lock of the k-th subrequest of request ri: its row's, or, for a write to
// several copies of a row ([keyspace.copies]), a lock of its own for each further copy.
func (e *engine) lockKey(ri int32, k int) uint64 {
	h := e.locks.rows[ri].hash
	if k > 0 {
		h = detect.Hash64(h + uint64(k))
	}
	return h
}

// lockAcquire handles write subrequest si, which reached its node at now and asks for the
// lock of key.
func (e *engine) lockAcquire(now Time, si int32, key uint64) {
	// A partition limit turns a write away before it touches the row, as DynamoDB's
	// request routers do.
	if sub := &e.subs.items[si]; e.limits != nil && !e.limits.admit(now, int(sub.shard), true, float64(sub.parts)) {
		e.throttled(now, si)
		return
	}
	for int(si) >= len(e.locks.wait) {
		e.locks.wait = append(e.locks.wait, lockWait{})
		e.locks.links = append(e.locks.links, waitlist.Link{})
	}
	e.locks.wait[si] = lockWait{key: key, at: now}
	i := e.locks.Find(key)
	if i < 0 {
		e.locks.Insert(key)
		e.lockGrant(now, si)
		return
	}
	ent := &e.locks.Slots[i]
	w := &e.locks.wait[si]
	w.state = lockWaiting
	ent.Waiters.PushBack(e.locks.links, si)
	sub := &e.subs.items[si]
	r := &e.reqs.items[sub.req]
	st := &e.streams[r.stream]
	if r.counted {
		st.out.LockWaited++
		l := st.locks
		slot, fresh := l.hot.Add(key)
		if fresh {
			l.hotKeys[slot] = e.locks.rows[sub.req].key
		}
		l.hotShrd[slot] = sub.shard
	}
	if to := st.locks.timeout; to > 0 {
		e.h.pushKind(now+to, si, evLockTimeout)
	}
	if e.queued++; e.queued > e.maxQueued && !e.stopped {
		e.saturate(now)
	}
}

// lockGrant gives subrequest si its key's lock at now, for a draw of its stream's hold time.
func (e *engine) lockGrant(now Time, si int32) {
	w := &e.locks.wait[si]
	w.state = lockHeld
	r := &e.reqs.items[e.subs.items[si].req]
	st := &e.streams[r.stream]
	e.lockWaited(st, r.counted, now-w.at)
	hold := st.locks.hold.draw(st.locks.rng)
	if r.counted {
		st.out.LockHolds++
		st.out.LockHoldSum += float64(hold)
	}
	e.h.pushKind(now+hold, si, evLockRelease)
}

// lockWaited records a wait for a lock, which ended (granted or given up) after wait.
func (e *engine) lockWaited(st *streamState, counted bool, wait Time) {
	if !counted {
		return
	}
	out := st.out
	out.LockWaits++
	out.LockWaitSum += float64(wait)
	out.LockWaitMax = max(out.LockWaitMax, wait)
	us := min(int64((wait+Microsecond-1)/Microsecond), histMaxMicros)
	st.locks.counts[runLayout.index(us)]++
}

// lockRelease handles the end of subrequest si's hold: the lock goes to the key's oldest
// waiter, or is freed, and si goes on to its node's cores.
func (e *engine) lockRelease(now Time, si int32) {
	w := &e.locks.wait[si]
	w.state = lockNone
	i := e.locks.Find(w.key)
	ent := &e.locks.Slots[i]
	if next := ent.Waiters.Head; next >= 0 {
		ent.Waiters.Remove(e.locks.links, next)
		e.queued--
		e.lockGrant(now, next)
	} else {
		e.locks.Remove(i)
	}
	w = &e.locks.wait[si]
	w.state = lockPassed
	e.reach(now, si)
	w.state = lockNone // reach takes no slot, so si's state is still this one
}

// lockPassed reports whether subrequest si comes from its row lock, having passed the
// partition limit before it.
func (e *engine) lockPassed(si int32) bool {
	return e.locks != nil && int(si) < len(e.locks.wait) && e.locks.wait[si].state == lockPassed
}

// lockTimeout handles the lock timeout of the waiter in slot si at now: if it is still
// waiting (the event is not stale), it gives up and its request's attempt fails.
func (e *engine) lockTimeout(now Time, si int32) {
	w := &e.locks.wait[si]
	if w.state != lockWaiting {
		return
	}
	sub := e.subs.items[si]
	r := &e.reqs.items[sub.req]
	st := &e.streams[r.stream]
	if w.at+st.locks.timeout != now {
		return // the slot holds a later waiter, whose own event is still to come
	}
	e.locks.Slots[e.locks.Find(w.key)].Waiters.Remove(e.locks.links, si)
	e.queued--
	w.state = lockNone
	e.lockWaited(st, r.counted, now-w.at)
	if w.at >= e.m.Warmup {
		e.res.Shards[sub.shard].LockFailed++
	}
	e.subs.put(si)
	e.subEnd(sub.req, int32(sub.attempt), now, failLock)
}

// report puts the stream's lock statistics into out.
func (l *streamLocks) report(out *StreamResult) {
	out.LockWait = runLayout.histogram(l.counts)
	l.counts = nil
	for _, c := range l.hot.Top(l.topK) {
		out.HotLocks = append(out.HotLocks, KeyCount{
			Values: append([]uint64(nil), l.hotKeys[c.Slot].Parts()...),
			Count:  c.Count, Error: c.Error, Shard: int(l.hotShrd[c.Slot]),
		})
	}
}

// handle ends a lock's hold, or a waiter's wait at its lock timeout.
func (l *rowLocks) handle(e *engine, ev event) {
	if ev.kind == evLockRelease {
		e.lockRelease(ev.at, ev.idx)
	} else {
		e.lockTimeout(ev.at, ev.idx)
	}
}

func (*rowLocks) windowEnd(*engine, Time, int) {}

// wrapUp puts every locked stream's lock statistics into its result.
func (*rowLocks) wrapUp(e *engine) {
	for i := range e.streams {
		if l := e.streams[i].locks; l != nil {
			l.report(e.streams[i].out)
		}
	}
}
