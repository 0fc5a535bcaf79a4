package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/keyspace"
)

// This file is the engine's one exported component interface: what a mechanism outside
// sim (a folder under mechanisms/, docs/architecture.md "Where a new thing goes") sees of
// the engine. A mechanism is a Setting in Model.Mechanisms; a new engine turns each on
// with a Core, through which it attaches its hooks (a RequestTaker, a RequestGate, a
// SubAdmit, a NodeGate, a SubWatcher, a ServiceStart, a SubEnd, a WindowWatcher, a Handler
// of its own event kinds) and reads and moves the requests it holds, and the shards (a
// ShardOwner adds shards of its own, a ShardGrower adds shards to the table as the run
// goes). sim's own mechanisms use the engine's unexported methods the Core wraps.

// Setting is the configuration of a mechanism that owns its whole part of a run (a page
// latch, a connection pool, job queues' claims): Model.Mechanisms carries one per
// mechanism that is on, and a new engine turns each on, in order, once its streams are
// set up.
type Setting interface {
	// On sets the mechanism up in the engine c: its state, the events it handles
	// (Register), the hooks it takes on the request path (GateStream, GateNodes,
	// WatchSubs) and the figures it will report (NewWaits).
	On(c Core)
	// Note says, in one sentence for `explain`, what the offered loads computed without
	// running leave out of the mechanism ("": nothing, or it is said elsewhere).
	Note() string
	// Waiter is the memory of one request or subrequest the mechanism holds back before
	// the nodes' queues (waiting for a connection, for a latch), in subrequests queued for a
	// core, measured; 0 when it holds nothing back. validate's memory estimate then allows
	// for a backlog of them up to the one that stops the run (Model.MaxQueued).
	Waiter() float64
}

// RequestGate is a mechanism that may hold a client request of a stream before its first
// attempt is sent (after the cache, before the client's rate limit), as a connection pool
// does, and hears when the request ends.
type RequestGate interface {
	// Enter is request ri, which would be sent to the nodes at now: true lets it go on,
	// false holds it, and the gate sends it later with Core.SendHeld.
	Enter(c Core, now Time, ri int32) bool
	// Leave is request ri's end, its outcome reaching the client at t (its last attempt
	// succeeded or failed; t may be later than the engine's now).
	Leave(c Core, t Time, ri int32)
}

// RequestTaker is a mechanism that may take a client request of a stream when it is
// issued, before the stream's RequestGates, and answer it itself (Core.Answer), as a
// client-side read cache does. It hears of each attempt sent and of the end of the
// requests whose database read it leads (Core.Lead) and of its background reads
// (Core.SendBackground).
type RequestTaker interface {
	// Take is request ri, whose first attempt would reach the nodes at now (the client
	// issued it a network delay before): true when the mechanism took it (it answers it,
	// now or later, with Core.Answer), false sends it on.
	Take(c Core, now Time, ri int32) bool
	// Sent is an attempt of request ri, which it leads or sent in the background, reaching
	// the nodes at now: a read of the database (one a rate limit turned away never is).
	Sent(c Core, now Time, ri int32)
	// Led is the end of request ri, which it led or sent in the background, its outcome
	// reaching the client at t.
	Led(c Core, ri int32, t Time, out Outcome)
}

// Outcome is how a request's attempt ended: OK, or the reason it failed (the core's own,
// or a Cause a mechanism registered).
type Outcome = uint8

// Outcomes a mechanism hands on (Core.Answer).
const (
	OK       Outcome = failNone
	TimedOut Outcome = failTimeout
)

// NodeGate is a mechanism that may hold a subrequest which reached its node, after the
// SubAdmits (a partition limit) and before the node's queue: a row lock (GateNodesFirst),
// then a page latch (GateNodes).
type NodeGate interface {
	// Enter is subrequest si at its node at now: true lets it go on, false holds it, and
	// the gate passes it on later with Core.Pass.
	Enter(c Core, now Time, si int32) bool
}

// SubWatcher is a mechanism that needs to know each new subrequest when it is made
// (NewSub), and each request that takes a request slot when it is issued (Issue), while
// its stream's planner still holds the request's key (Core.LastKey): a request's attempt
// may be sent later (held by a pool or a rate limit, or retried), when the planner holds a
// later request's key, so what a subrequest needs of its request's key is kept at issue.
// A solo's subrequest (Core.SubRequest < 0) is made as its request is issued.
type SubWatcher interface {
	Issue(c Core, stream int, ri int32)
	NewSub(c Core, stream int, si int32)
}

// SubEnd is a mechanism that may hold a client subrequest's completion when its service
// at its node ends, as a commit's wait for its node's log flush does: the core has freed
// its core, and the subrequest keeps its slot and whatever it holds until it completes.
type SubEnd interface {
	// End is the end of subrequest si's service at now: true lets it complete now, false
	// holds it, and the mechanism completes it later with Core.Finish.
	End(c Core, now Time, si int32) bool
}

// SubDrop is a SubEnd that also hears of a subrequest its node's full queue refused after
// the node gates let it through, which ends there without a service (a row lock held
// until its write commits is let go then). The engine asks each SubEnd whether it is one,
// on the refusal's path only.
type SubDrop interface {
	Dropped(c Core, now Time, si int32)
}

// ServiceStart is a mechanism that lengthens a subrequest's service, by CPU of its node's
// own, when a core of the node takes it: an event loop's wake-up, paid by the first
// subrequest of each batch it serves (mechanisms/eventloop). The added time is service:
// the core is busy for it, the node's and the shard's busy time count it, and so does the
// subrequest's time at its node.
type ServiceStart interface {
	// Start is subrequest si, taken at now by a core of node n (from its queue, or on
	// arrival by an idle core), with queued subrequests still waiting in n's queue behind
	// it: it returns the service time to add to si's (0: none).
	Start(c Core, now Time, n int, si int32, queued int) Time
}

// SubAdmit is a mechanism that may refuse a subrequest as it reaches its node, before the
// partition limit and the NodeGates, as a global secondary index's partition limit and an
// asynchronous index write's push-back do (mechanisms/index). A subrequest a NodeGate held
// and passed on is not asked again.
type SubAdmit interface {
	// Admit is subrequest si at its node at now: true lets it go on, false says the
	// mechanism refused it and has already ended it (Core.Refuse, Core.Reject).
	Admit(c Core, now Time, si int32) bool
}

// ShardOwner is a Setting with shards of its own beyond the table's (a global secondary
// index's): a new engine asks it for them before it sizes its results and turns any
// Setting on, and it adds them with Core.AddShards.
type ShardOwner interface {
	OwnShards(c Core)
}

// ShardGrower is a Setting that adds shards to the table during the run, as automatic
// splits do (mechanisms/split): a new engine gives the table MaxShards shard ids in all,
// the new ones numbered after the table's, before it sizes its results (the ids no shard
// took by the end are left out of them, Core.KeepShards), and records each node's busy
// time as the run goes (Core.NodeBusy), for a mechanism that moves the shards it adds
// (Core.MoveShard). It cannot be combined with a migration, a rebalance, an index or a
// window sink (Model.Sink).
type ShardGrower interface {
	MaxShards() int
}

// GrowsShards reports whether a Setting of m adds shards to the table during the run
// (ShardGrower): its shard series cannot go to a window sink.
func GrowsShards(m *Model) bool {
	for _, s := range m.Mechanisms {
		if _, ok := s.(ShardGrower); ok {
			return true
		}
	}
	return false
}

// Coupling is a Setting that says in its own words why a run with it cannot be split
// among workers (OneCoreReason), the first of Model.Mechanisms that says so first: a
// mechanism that couples the nodes, or one that is not split yet. A Setting that is not
// one keeps its runs on one engine all the same, for a reason that names no mechanism.
type Coupling interface {
	Couples() string
}

// WindowWatcher is a mechanism told when each window of the run has closed (WatchWindows),
// with the window's figures complete (ShardBusy, NodeBusy, ThrottleStreak), before the
// event that opened a later window is handled.
type WindowWatcher interface {
	// WindowEnd is the end of window w: t, the time of the first event after it, is in a
	// later window (or at or past the end of the run).
	WindowEnd(c Core, t Time, w int)
}

// Handler handles the events of the kinds a mechanism registered (Core.Register): idx is
// whatever the mechanism scheduled (Core.Schedule), at the engine's now.
type Handler interface {
	Handle(c Core, at Time, idx int32)
}

// EvKind is the kind of one of the engine's events, which says whose Handler handles it
// (unlike EventKind, what changed during a run). A mechanism allocates its own with
// NewEventKind.
type EvKind = evKind

// kindsTaken counts the event kinds in use: the core's and sim's mechanisms' of heap.go,
// then those allocated by NewEventKind.
var kindsTaken = evFixed

// NewEventKind allocates an event kind for a mechanism's own events. A mechanism calls it
// once per kind, in a package-level variable's initializer, so the kinds are fixed before
// any run; kinds are numbered in the order the packages are initialized, and an event's
// kind never orders it (the heap orders by time, then by scheduling).
func NewEventKind() EvKind {
	if kindsTaken >= evKinds {
		panic("sim: more event kinds than evKinds")
	}
	k := kindsTaken
	kindsTaken++
	return k
}

// Core is a mechanism's handle on the engine that turned it on: a value, passed to every
// hook, that reads and moves the engine's requests and subrequests by slot.
type Core struct{ e *engine }

// Now is the time of the event being handled.
func (c Core) Now() Time { return c.e.now }

// Duration is the model's run length: what is due at or after it does not happen.
func (c Core) Duration() Time { return c.e.m.Duration }

// Network is the model's one-way network delay between the clients and the nodes.
func (c Core) Network() Time { return c.e.m.Network }

// Nodes is the number of the model's nodes; a node is named by its index.
func (c Core) Nodes() int { return c.e.nNodes }

// Streams is the number of the model's streams; a stream is named by its index.
func (c Core) Streams() int { return len(c.e.m.Streams) }

// Op is stream i's operation.
func (c Core) Op(i int) Op { return c.e.streams[i].s.Op }

// Point reports whether stream i's requests are point requests (each names one key).
func (c Core) Point(i int) bool { return c.e.streams[i].point != nil }

// LastKey is the key point stream i's planner planned last: during SubWatcher.Issue, the
// key of the request issued; during NewSub of a solo's subrequest, its request's.
func (c Core) LastKey(i int) *keyspace.Key { return c.e.streams[i].point.LastKey() }

// Visits are the visits stream i's planner planned last, as LastKey's key: during
// SubWatcher.Issue, the request's; during NewSub of a solo's subrequest, its one visit.
func (c Core) Visits(i int) []keyspace.Visit { return c.e.streams[i].visits }

// SubShard is subrequest si's shard.
func (c Core) SubShard(si int32) int32 { return c.e.subs.items[si].shard }

// SubRequest is the request slot of subrequest si, negative for a solo's (a request made
// and sent with its one subrequest, which takes no request slot).
func (c Core) SubRequest(si int32) int32 {
	if r := c.e.subs.items[si].req; r >= 0 {
		return r
	}
	return -1
}

// SubStream is the stream of client subrequest si.
func (c Core) SubStream(si int32) int { return c.e.subStream(&c.e.subs.items[si]) }

// SubNode is the node that serves subrequest si.
func (c Core) SubNode(si int32) int { return int(c.e.subs.items[si].node) }

// SubWrite reports whether subrequest si writes a row.
func (c Core) SubWrite(si int32) bool { return c.e.subs.items[si].write }

// SubParts is the number of partitions subrequest si reads or writes on its shard.
func (c Core) SubParts(si int32) int { return int(c.e.subs.items[si].parts) }

// Shards is the number of the run's shard ids (a shard is named by its index): the
// table's, those a ShardGrower may add to it and the mechanisms' own (AddShards: an
// index's, a migration's new layout's). TableShards is the table's shards at the start
// (Model.ShardNode); TableIDs the table's ids, from 0, before the mechanisms' own.
func (c Core) Shards() int { return c.e.nShards }

// TableShards is the table's shards at the start of the run (Shards).
func (c Core) TableShards() int { return len(c.e.m.ShardNode) }

// TableIDs is the number of the table's shard ids (Shards): a mechanism's own shards
// (AddShards) are numbered from it.
func (c Core) TableIDs() int { return int(c.e.table) }

// SubCounted reports whether client subrequest si's request was issued after the warmup,
// once it has reached its node.
func (c Core) SubCounted(si int32) bool { return c.e.subCounted(si, c.e.warmup) }

// ReqStream is the stream of request ri.
func (c Core) ReqStream(ri int32) int { return int(c.e.reqs.items[ri].stream) }

// ReqIssue is when request ri was issued.
func (c Core) ReqIssue(ri int32) Time { return c.e.reqs.items[ri].issue }

// ReqCounted reports whether request ri was issued after the warmup.
func (c Core) ReqCounted(ri int32) bool { return c.e.reqs.items[ri].counted }

// Schedule has an event of kind k, for idx, handled at at by the kind's Handler.
func (c Core) Schedule(at Time, idx int32, k EvKind) { c.e.h.pushKind(at, idx, k) }

// Hold counts one more request or subrequest held back at now, in the backlog that stops
// a saturated run at Model.MaxQueued; Unhold counts one less, when it goes on.
func (c Core) Hold(now Time) {
	e := c.e
	if e.queued++; e.queued > e.maxQueued && !e.stopped {
		e.saturate(now)
	}
}

// Unhold counts one less held back (Hold).
func (c Core) Unhold() { c.e.queued-- }

// Pass puts subrequest si, which a NodeGate held until now, on its way again: through the
// gates after that one, then to the node's queue or a core.
func (c Core) Pass(now Time, si int32) { c.e.pass(now, si) }

// Finish completes subrequest si, whose completion a SubEnd held until now: through the
// SubEnd hooks after that one, then its request hears of it.
func (c Core) Finish(now Time, si int32) { c.e.finishHeld(now, si) }

// SendHeld sends request ri, which a RequestGate held until its first attempt could reach
// the nodes at now: through the stream's later gates, then on.
func (c Core) SendHeld(now Time, ri int32) { c.e.sendHeld(now, ri) }

// NewWaits starts counting mechanism name's waits of stream i's work (of: what waits),
// which every output shows as the stream's waits. Called in On, once per stream.
func (c Core) NewWaits(i int, name, of string) *WaitCounter {
	return c.e.newWaits(c.e.streams[i].out, name, of)
}

// GateStream puts g before the sends of stream i's requests.
func (c Core) GateStream(i int, g RequestGate) { c.e.gateStream(i, g) }

// TakeStream has t take stream i's requests as they are issued (RequestTaker), before the
// stream's gates (one taker a stream); each of the stream's requests then takes a slot, keeps its key identity
// (ReqKey) and its visits (for SendBackground).
func (c Core) TakeStream(i int, t RequestTaker) {
	st := &c.e.streams[i]
	st.taker = t
	st.needKey, st.keep, st.plain = true, true, false
}

// ReqKey is the identity of the key request ri names, of a stream a RequestTaker takes.
func (c Core) ReqKey(ri int32) uint64 { return c.e.keys[ri] }

// ClientTimeout is stream i's client timeout (0: none).
func (c Core) ClientTimeout(i int) Time { return c.e.m.Streams[i].Client.Timeout }

// Lead marks request ri, which a RequestTaker did not take, as one whose database read it
// leads: the taker hears of each of its attempts sent (RequestTaker.Sent) and of its end
// (Led).
func (c Core) Lead(ri int32) { c.e.reqs.items[ri].lead = true }

// Answer gives request ri, which a RequestTaker took, its outcome, reaching the client at t,
// and frees its slot when nothing of it is in flight.
func (c Core) Answer(ri int32, t Time, out Outcome) {
	c.e.finish(ri, t, out)
	c.e.release(ri)
}

// SendBackground sends, at now, a copy of request ri's database read that no client waits
// for: the stream's RequestTaker hears of it sent (Sent) and of its end (Led), with the
// copy's slot, whose ReqKey is ri's.
func (c Core) SendBackground(now Time, ri int32) { c.e.sendBackground(now, ri) }

// Aux is the engine's own random numbers, for a mechanism's draws that take their turn
// among the engine's (replica choice, sampling).
func (c Core) Aux() *rand.Rand { return c.e.aux }

// AdmitSubs has a asked to admit every subrequest as it reaches its node (SubAdmit), before
// the NodeGates, after the SubAdmits put there before it; from the first on, the core keeps
// each shard's run of windows in which one refused a subrequest (Refuse).
func (c Core) AdmitSubs(a SubAdmit) {
	e := c.e
	e.admits = append(e.admits, a)
	if e.throttleWin == nil {
		e.throttleWin, e.throttleRun = make([]int, e.nShards), make([]int, e.nShards)
		for s := range e.throttleWin {
			e.throttleWin[s] = -1
		}
	}
}

// Refuse ends subrequest si, which a SubAdmit refused at now for cause (a partition
// limit's throttle): counted against its shard (ShardResult.Failed) after the warmup, its
// slot freed and its request's attempt failed for cause (which the client retries if
// the cause was registered so); the shard's run of windows with a refusal grows
// (ThrottleStreak).
func (c Core) Refuse(now Time, si int32, cause Cause) {
	e := c.e
	sub := &e.subs.items[si]
	if now >= e.m.Warmup {
		e.res.Shards[sub.shard].Failed[cause]++
	}
	if sub.req <= soloReq {
		e.promote(now, si)
	}
	s := e.subs.items[si]
	e.subs.put(si)
	e.throttledIn(s.shard, e.window(now))
	e.subEnd(s.req, int32(s.attempt), now, cause.outcome())
}

// GateNodes puts g at every node, after the gates put there before it.
func (c Core) GateNodes(g NodeGate) { c.e.gateNodes(g) }

// GateNodesFirst puts g at every node before the gates of GateNodes (after those put there
// by GateNodesFirst before it), so that g admits a subrequest right after the SubAdmits (a
// partition limit): a row lock, which a write takes before its page latch and holds while it waits
// for it.
func (c Core) GateNodesFirst(g NodeGate) { c.e.gateNodesFirst(g) }

// Slotted has each of stream i's requests take a request slot (no request of it is sent
// as a solo), so that a SubWatcher is told of its issue and can keep what it needs of the
// request by slot (a row lock: its row).
func (c Core) Slotted(i int) { c.e.streams[i].plain = false }

// Seed is the model's seed, and StreamSeed(i, purpose) the id of stream i's random
// numbers for a purpose, derived from its name as the engine's own streams' ids are, so
// that adding or reordering streams leaves the others' draws alone.
func (c Core) Seed() uint64 { return c.e.m.Seed }

// StreamSeed is the id of stream i's random numbers for purpose (Seed).
func (c Core) StreamSeed(i int, purpose uint64) uint64 {
	return streamSeed(c.e.m.Streams[i].Name, purpose)
}

// TopK is how many of the hottest keys detection reports (Model.Detect.TopK, or its
// default).
func (c Core) TopK() int {
	if k := c.e.m.Detect.TopK; k > 0 {
		return k
	}
	return detect.DefaultTopK
}

// StreamOut is stream i's result, for a mechanism that corrects the core's figures in it
// (an index's writes taken out of ShardRows).
func (c Core) StreamOut(i int) *StreamResult { return c.e.streams[i].out }

// SubAttempt is the attempt of its request that subrequest si belongs to (1: the first).
func (c Core) SubAttempt(si int32) int { return int(c.e.subs.items[si].attempt) }

// GiveUp ends subrequest si, a NodeGate's waiter that gave up at now (a row lock's
// timeout) for cause: its slot is freed and its request's attempt fails for cause (which
// the client retries if the cause was registered so), counted against its shard
// (ShardResult.Failed) when it began waiting, at since, after the warmup.
func (c Core) GiveUp(now Time, si int32, since Time, cause Cause) {
	e := c.e
	sub := e.subs.items[si]
	if since >= e.m.Warmup {
		e.res.Shards[sub.shard].Failed[cause]++
	}
	e.passed[si] = 0 // out of the node gates: the slot's next subrequest starts at the first
	e.subs.put(si)
	e.subEnd(sub.req, int32(sub.attempt), now, cause.outcome())
}

// WatchWindows has h told of the end of every window, after the watchers put there before
// it.
func (c Core) WatchWindows(h WindowWatcher) {
	c.e.windowed = append(c.e.windowed, h)
}

// Window is the window of t, -1 at or past the end of the run.
func (c Core) Window(t Time) int { return c.e.window(t) }

// Windows is the number of the run's windows.
func (c Core) Windows() int { return c.e.res.Windows }

// WindowSpan is the length of window w (the last may be shorter).
func (c Core) WindowSpan(w int) Time { return c.e.res.WindowSpan(w) }

// Replicas is the number of followers of every shard (SetReplicas), 0 without them.
func (c Core) Replicas() int { return c.e.res.Replicas }

// SetReplicas gives every shard k followers, on the k nodes after its leader's (fewer than
// the nodes): a shard's CPU is then spread over its 1 + k copies in the figures
// (Result.Replicas, ShardWindow.Replicas), and the nodes' busy series are recorded as the
// run goes. Called in On, before any Setting that copies (CopyBy).
func (c Core) SetReplicas(k int) {
	e := c.e
	if k >= e.nNodes {
		panic(fmt.Sprintf("sim: %d replicas need more than %d nodes", k, e.nNodes))
	}
	e.res.Replicas = k
	if e.ring != nil {
		e.ring.sw.Replicas = k
	}
	if k > 0 {
		e.trackNode = true
	}
}

// WriteDone is a mechanism that hears of each client write's end at its shard's leader,
// its service done (a SubEnd let it complete), as followers do, which apply it then.
type WriteDone interface {
	// Wrote is the end, at now, of a write of stream i on parts partitions of shard sh.
	Wrote(c Core, now Time, i int, sh, parts int32)
}

// WatchWrites has w told of every client write's end (WriteDone); one a run. The streams
// whose writes it must hear of take a request slot (Slotted): a solo's end is not told.
func (c Core) WatchWrites(w WriteDone) { c.e.wrote = w }

// Follow sends, at now, a follower's apply of a write of stream i on parts partitions of
// shard sh, at node n: a subrequest of cost per partition (0: the stream's own cost),
// drawn as the stream's service, that nobody waits for, and that its node never throttles.
func (c Core) Follow(now Time, i int, sh int32, n int, parts int32, cost Time) {
	e := c.e
	st := &e.streams[i]
	if cost == 0 {
		cost = st.s.Cost
	}
	si := e.subs.take()
	e.subs.items[si] = subreq{req: noReq, shard: sh, node: int16(n), parts: parts,
		service: e.serviceTime(st, cost, parts)}
	e.reach(now, si)
}

// ReadRouter is a mechanism that chooses the node each read or scan subrequest goes to,
// as followers that serve reads do.
type ReadRouter interface {
	// ReadNode is the node a read's visit to a shard whose leader is on node leader goes
	// to.
	ReadNode(c Core, leader int32) int32
}

// RouteReads has r choose the node of every read and scan subrequest (ReadRouter); one a
// run. The streams it routes take a request slot (Slotted): a solo goes to its leader.
func (c Core) RouteReads(r ReadRouter) { c.e.readAt = r }

// NodeCores is the number of node n's cores now.
func (c Core) NodeCores(n int) int { return c.e.nodes[n].cores }

// NodeBusy is node n's busy core time in window w, complete once w has closed; recorded as
// the run goes where a ShardGrower is on (or replicas, a rebalance).
func (c Core) NodeBusy(w, n int) Time { return c.e.res.NodeBusy[w*c.e.nNodes+n] }

// ShardNode is the node that serves shard sh now.
func (c Core) ShardNode(sh int) int { return int(c.e.shardNode[sh]) }

// ShardBusy is shard sh's busy time in window w, complete once w has closed.
func (c Core) ShardBusy(w, sh int) Time {
	return c.e.res.ShardBusy[(w&c.e.wMask)*c.e.nShards+sh]
}

// ThrottleStreak is how many windows running, up to window w, shard sh has had a
// subrequest refused in (Refuse); 0 when none was in w, or with no SubAdmit.
func (c Core) ThrottleStreak(sh, w int) int { return c.e.throttleStreak(sh, w) }

// ShardOut is shard sh's result: a mechanism that adds shards records where each came from
// (Parent, Created) and reads what they hold (Rows).
func (c Core) ShardOut(sh int) *ShardResult { return &c.e.res.Shards[sh] }

// PlaceShard puts shard sh, which a ShardGrower adds at now, on node n, where it starts.
func (c Core) PlaceShard(sh, n int) {
	e := c.e
	e.shardNode[sh] = int32(n)
	e.res.Shards[sh].Node, e.res.Shards[sh].Home = n, n
}

// Record adds ev to what changed during the run (Result.Events).
func (c Core) Record(ev Event) { c.e.res.Events = append(c.e.res.Events, ev) }

// KeepShards cuts the per-shard results to the first n shard ids, those that exist at the
// end of the run: the ids a ShardGrower reserved and never added are left out. Called in
// WrapUp.
func (c Core) KeepShards(n int) {
	e := c.e
	r := e.res
	if n == e.nShards {
		return
	}
	busy := make([]Time, 0, r.Windows*n)
	ops := make([]int64, 0, r.Windows*n)
	mq := make([]int32, 0, r.Windows*n)
	for w := 0; w < r.Windows; w++ {
		busy = append(busy, r.ShardBusy[w*e.nShards:w*e.nShards+n]...)
		ops = append(ops, r.ShardOps[w*e.nShards:w*e.nShards+n]...)
		mq = append(mq, r.ShardMaxQueue[w*e.nShards:w*e.nShards+n]...)
	}
	r.ShardBusy, r.ShardOps, r.ShardMaxQueue = busy, ops, mq
	r.Shards = slices.Clip(r.Shards[:n])
}

// WrapUpper is a Handler that puts what it recorded into the Result when the run ends
// (WrapUp), before the core derives the totals of the series, in the order the
// mechanisms registered.
type WrapUpper interface {
	WrapUp(c Core)
}

// Sampler draws a Delay exactly as the engine's own delays are drawn.
type Sampler struct{ d delaySampler }

// NewSampler is a Sampler of d.
func NewSampler(d Delay) Sampler { return Sampler{newDelaySampler(d)} }

// Draw is one draw, from r.
func (s *Sampler) Draw(r *rand.Rand) Time { return s.d.draw(r) }

// WaitCounts counts waits in the run's histogram layout, for a mechanism whose waits have
// figures of their own, which it reports (Report: row locks' wait histogram); a
// mechanism's waits in StreamResult.Waits are counted by a WaitCounter.
type WaitCounts struct{ counts []int64 }

// NewWaitCounts is an empty WaitCounts.
func NewWaitCounts() WaitCounts { return WaitCounts{make([]int64, runLayout.countsN)} }

// Add counts a wait of d, in microseconds rounded up.
func (w *WaitCounts) Add(d Time) {
	us := min(int64((d+Microsecond-1)/Microsecond), histMaxMicros)
	w.counts[runLayout.index(us)]++
}

// Histogram is the histogram of the waits counted; w counts no more.
func (w *WaitCounts) Histogram() *hdrhistogram.Histogram {
	h := runLayout.histogram(w.counts)
	w.counts = nil
	return h
}

// AddShards adds shards of a mechanism's own beyond the table's (a global secondary
// index's, a migration's new layout's): shard k, served by node nodes[k], gets the id it
// returns plus k. Only a ShardOwner calls it, from OwnShards, and with no ShardGrower,
// which numbers the table's shards anew. The table's partition limits (mechanisms/limits)
// do not apply to these shards: their mechanism admits them (SubAdmit).
func (c Core) AddShards(nodes []int) int32 {
	e := c.e
	if e.growing {
		panic("sim: a mechanism's own shards cannot be combined with shard splits")
	}
	first := int32(e.nShards)
	e.nShards += len(nodes)
	e.ownNodes = append(e.ownNodes, nodes...)
	return first
}

// ModelCores is node n's cores in the model (Model.Nodes), whether or not it has joined
// (NodeCores: its cores now).
func (c Core) ModelCores(n int) int { return c.e.m.Nodes[n].Cores }

// JoinLater makes the nodes from first on join during the run (Join): until then they have
// no cores and serve nothing, and no shard of the table may be placed on them. The nodes'
// busy series are then recorded as the run goes (a shard may move between them). Called in
// On.
func (c Core) JoinLater(first int) {
	e := c.e
	for s, n := range e.m.ShardNode {
		if n >= first {
			panic(fmt.Sprintf("sim: shard %d on node %d, which joins later", s, n))
		}
	}
	e.trackNode = true
	for n := first; n < e.nNodes; n++ {
		e.nodes[n].cores = 0
		e.coreLog = append(e.coreLog, coreChange{at: 0, node: n, cores: 0})
	}
}

// Join gives node n, which joins later (JoinLater), its cores at now.
func (c Core) Join(now Time, n int) {
	e := c.e
	e.nodes[n].cores = e.m.Nodes[n].Cores
	e.coreLog = append(e.coreLog, coreChange{at: now, node: n, cores: e.m.Nodes[n].Cores})
}

// MoveShard has node n serve shard sh from now on: the shard's requests go there, and the
// move is recorded (ShardResult.Moves, an EventMove).
func (c Core) MoveShard(now Time, sh, n int) { c.e.moveShard(now, sh, n) }

// ShardBusySoFar returns the CPU time each of the first nS shards had up to now's window
// (included), as the shard series hold it (streamed or kept).
func (c Core) ShardBusySoFar(now Time, nS int) []float64 {
	e := c.e
	busy := make([]float64, nS)
	last := min(e.window(now), e.res.Windows-1)
	if last < 0 {
		last = e.res.Windows - 1
	}
	first := 0
	if e.ring != nil {
		// The closed windows were handed to the sink, which added them to the totals; the
		// ring holds the open ones.
		for s := range nS {
			busy[s] = float64(e.res.Shards[s].Busy)
		}
		first = e.ring.closedW + 1
	}
	for w := first; w <= last; w++ {
		for s := range nS {
			busy[s] += float64(e.res.ShardBusy[(w&e.wMask)*e.nShards+s])
		}
	}
	return busy
}

// Note adds text at t to the run's timeline of events, as an action's line.
func (c Core) Note(t Time, text string) { c.e.note(t, text) }

// note adds an action's line, text at t, to the run's timeline of events.
func (e *engine) note(t Time, text string) {
	e.res.Events = append(e.res.Events, Event{At: t, Kind: EventAction, Shard: -1, Text: text})
}

// Initer is a Setting that says, before the streams are set up (and before any Setting is
// turned on), what they must be ready for during the run: a client limit that an operator
// may set later (MayLimit). Only MayLimit may be called in Init.
type Initer interface {
	Init(c Core)
}

// MayLimit says, in Init, that stream i's client limit may be set during the run
// (SetClientLimit), a queueing one with queue: the stream's requests then take the client's
// path from the start, and keep their visits where a queueing limit may hold them.
func (c Core) MayLimit(i int, queue bool) {
	st := &c.e.streams[i]
	st.mayLimit = max(st.mayLimit, 1)
	if queue {
		st.mayLimit = 2
	}
}

// SetClientLimit gives stream i's client a new rate limit l (nil: none) from now on, where
// its requests reach the nodes (a network delay after the client changed it). The
// requests the old limit held are sent at once when it is lifted, or queue afresh behind
// the new one. The Setting said so in Init (MayLimit), unless the stream had a limit
// already.
func (c Core) SetClientLimit(now Time, i int, l *Limit) { c.e.relimit(now, i, l) }

// SetCores gives node n cores cores at now: more cores take waiting work at once. The
// node's capacity series follows (Result.NodeCapacity).
func (c Core) SetCores(now Time, n, cores int) {
	e := c.e
	nd := &e.nodes[n]
	nd.cores = cores
	e.coreLog = append(e.coreLog, coreChange{at: now, node: n, cores: cores})
	e.startQueued(now, n, nd)
}

// SetQueueLimit makes node n's queue limit limit (0: unbounded) from now on; what waits in
// it already stays.
func (c Core) SetQueueLimit(n, limit int) { c.e.nodes[n].limit = limit }

// Copier is a mechanism that copies rows between nodes in batches of background work
// (Core.Copy), as a migration's backfill and a rebalance do, and hears of each batch's end.
type Copier interface {
	// Copied is the end, at now, of the service of a batch on shard sh that carried rows
	// (as Copy sent it).
	Copied(c Core, now Time, sh int, rows int32)
}

// CopyBy has h hear of the end of every copy batch (Copy). One Copier a run, and none
// with shard splits, which place shards themselves.
func (c Core) CopyBy(h Copier) {
	e := c.e
	if e.copier != nil || e.growing {
		panic("sim: a mechanism's copies cannot be combined with another's or shard splits")
	}
	e.copier = h
}

// Copy sends, at now, one batch of a copy on shard sh at node n: background work of
// service that no client waits for, carrying rows (0 for a batch's read, which copies
// nothing yet). It queues with the live traffic at the node, which never refuses it (a
// full queue included), as a backfill's batch; the Copier hears of its end (Copied).
func (c Core) Copy(now Time, sh, n int, rows int32, service Time) {
	e := c.e
	si := e.subs.take()
	e.subs.items[si] = subreq{req: noReq, shard: int32(sh), node: int16(n), parts: rows,
		service: service, attempt: copyMark}
	e.reach(now, si)
}

// CopyBatch is how much copy work one batch holds: the rows of 10 ms at the copy's rate,
// at least one. A migration's backfill batch is one read subrequest on an old shard and
// then, when the read is served, one write subrequest on a new shard, as a copy job reads a
// page of rows and writes what it read: a batch holds one core at a time.
const CopyBatch = 10 * Millisecond

// CopyPeriod is the time between two batches of batch rows at rate rows per second, at
// most maxCopyPeriod: a rate near zero (1e-300 rows/s, or a max_cpu that leaves almost
// nothing) copies nothing in any run, where the period's conversion from an infinite float
// used to come out negative and run the copy flat out.
func CopyPeriod(batch int64, rate float64) Time {
	p := float64(batch) / rate * float64(Second)
	if !(p < float64(maxCopyPeriod)) {
		return maxCopyPeriod
	}
	return max(Time(p), 1)
}

// maxCopyPeriod is the longest copy period: past the end of the longest run (10000 days).
const maxCopyPeriod = 10000 * 24 * Hour

// copyMark is the attempt number of a copy batch (Core.Copy; req noReq), which tells it
// from a Follow's subrequest (attempt 0); applyMark that of an Apply's write. A request's
// attempts stay far below both (at most 1 + 10 retries).
const (
	copyMark  = math.MaxUint8
	applyMark = copyMark - 1
)

// Applier is a mechanism that sends writes nobody waits for to the nodes (Core.Apply), as a
// migration's outbox applies its copies of the writes on the new layout, and hears of each
// one's end or refusal.
type Applier interface {
	// Applied is the end, at now, of the service of a write on shard sh.
	Applied(c Core, now Time, sh int)
	// Refused is a write on shard sh of parts partitions and service (as Apply sent it),
	// which its node's full queue refused at now: it was not served.
	Refused(c Core, now Time, sh int, parts int32, service Time)
}

// ApplyBy has h hear of the end or refusal of every write sent with Apply. One Applier a
// run; none with a SubAdmit (startSettings).
func (c Core) ApplyBy(h Applier) {
	if c.e.applier != nil {
		panic("sim: a run has one Applier")
	}
	c.e.applier = h
}

// Apply sends, at now, a write of parts partitions and service to shard sh at its node,
// which nobody waits for, as a follower's apply: it counts its row and its CPU on the shard
// as a write does, a full queue refuses it, and the Applier hears of its end (Applied) or
// its refusal (Refused).
func (c Core) Apply(now Time, sh int, parts int32, service Time) {
	e := c.e
	si := e.subs.take()
	e.subs.items[si] = subreq{req: noReq, shard: int32(sh), node: int16(e.shardNode[sh]), parts: parts,
		service: service, attempt: applyMark, write: true}
	e.reach(now, si)
}

// ServiceTime draws the service time of one subrequest of stream i on parts partitions,
// as the stream's own subrequests draw it.
func (c Core) ServiceTime(i int, parts int32) Time {
	st := &c.e.streams[i]
	return c.e.serviceTime(st, st.s.Cost, parts)
}

// WorkWatcher is a mechanism told of the CPU of the work the cores take, as a migration
// counts its dual writes' and its backfill's: it is not on the request path of a run
// without one.
type WorkWatcher interface {
	// WriteStarted is a write subrequest on shard sh (a client's, a follower's apply, an
	// Apply's) of service, taken by a core at now, before the end of the run.
	WriteStarted(c Core, now Time, sh int32, service Time)
	// CopyStarted is a copy batch (Copy) of service taken by a core at now, the end of the
	// run included.
	CopyStarted(c Core, now, service Time)
}

// WatchWork has w told of the writes and copy batches the cores take. One WorkWatcher a run.
func (c Core) WatchWork(w WorkWatcher) {
	if c.e.work != nil {
		panic("sim: a run has one WorkWatcher")
	}
	c.e.work = w
}

// EndWatcher is a mechanism told of every client request's outcome (served or failed)
// reaching its client, as a migration learns when the backlog issued before its cutover
// has drained.
type EndWatcher interface {
	// Ended is a request issued at issue whose outcome reached its client at t.
	Ended(c Core, issue, t Time)
}

// WatchEnds has w told of every request's end. One EndWatcher a run.
func (c Core) WatchEnds(w EndWatcher) {
	if c.e.ended != nil {
		panic("sim: a run has one EndWatcher")
	}
	c.e.ended = w
}

// Planner is the planner stream i's requests plan through now.
func (c Core) Planner(i int) Planner { return c.e.streams[i].s.Planner }

// Replan has stream i's requests plan through p from now on (p may wrap the stream's
// planner, Planner(i), and add visits or move them to other shards). Its requests no longer
// count as point requests (Point), so nothing reads a point request's key of them (hot-key
// detection, a split's sample, LastKey). Called in On; the settings turned on after this
// one see the stream so.
func (c Core) Replan(i int, p Planner) {
	st := &c.e.streams[i]
	s := *st.s
	s.Planner = p
	st.s, st.point = &s, nil
}

// ReplanAt is Replan during the run, at now, as a migration's phases change: the stream's
// partition counts stop at now (StreamResult.PartitionsStopped), as its requests no longer
// plan through the planner they count.
func (c Core) ReplanAt(now Time, i int, p Planner) {
	c.e.stopParts(now, &c.e.streams[i])
	c.Replan(i, p)
}

// QueueFull reports whether node n's queue is full: a subrequest that reached it now would
// find every core busy and the queue at its limit, and be rejected.
func (c Core) QueueFull(n int) bool {
	nd := &c.e.nodes[n]
	return nd.busy >= nd.cores && nd.limit > 0 && nd.q.Len() >= nd.limit
}

// Reject fails subrequest si, which a SubAdmit refused at now because its node's queue is
// full (QueueFull), as the full queue would have: counted on its shard (Rejected), its
// attempt fails.
func (c Core) Reject(now Time, si int32) { c.e.queueRefused(now, si) }

// Detach makes subrequest si, a SubAdmit admitted at its node at now, one nobody waits
// for: its request counts it as ended, successfully, and the subrequest is served on as a
// follower's apply is, its end concerning nobody (an asynchronous index write).
func (c Core) Detach(now Time, si int32) {
	e := c.e
	sub := &e.subs.items[si]
	ri, attempt := sub.req, int32(sub.attempt)
	sub.req, sub.attempt = noReq, detachMark
	if r := &e.reqs.items[ri]; r.plain {
		if r.pending--; r.pending == 0 {
			e.finishPlain(ri, r)
		}
		return
	}
	e.subEnd(ri, attempt, now, failNone)
}

// detachMark is the attempt number of a subrequest once detached from its request (req
// noReq, Core.Detach), which tells it from a Follow's subrequest, a Copy's batch and an
// Apply's write.
const detachMark = applyMark - 1

// Result is the run's result, for a mechanism that reads it (its windows, Result.Windows);
// what a mechanism records of its own it reports (Report).
func (c Core) Result() *Result { return c.e.res }

// Report adds x, what a mechanism did of its own (a migration's, a rebalance's, the
// indexes' layouts, the read cache's counts, row locks' waits), to the run's result
// (Result.Reports), where the figures find it by its type (figures/metrics): the result's
// own fields are the core's.
func (c Core) Report(x any) { c.e.res.Reports = append(c.e.res.Reports, x) }

// WatchSubs has w told of every new subrequest, and of every request issued into a slot.
func (c Core) WatchSubs(w SubWatcher) { c.e.watchSubs(w) }

// EndSubs has h told of the end of every client subrequest's service, after the hooks
// put there before it, and before every hook EndSubsLast puts there.
func (c Core) EndSubs(h SubEnd) {
	c.e.ends = slices.Insert(c.e.ends, c.e.endHolds, h)
	c.e.endHolds++
}

// EndSubsLast has h, which never holds a completion (its End returns true), told of the
// end of every client subrequest's service after every hook EndSubs puts there, whichever
// mechanism the model turns on first, and after the hooks EndSubsLast put there before it:
// what h lets go when a subrequest completes (a row lock held until its write commits)
// it then holds through every wait that holds the completion (its node's commit flush).
func (c Core) EndSubsLast(h SubEnd) { c.e.ends = append(c.e.ends, h) }

// StartSubs has h told of every subrequest a core takes, after the hooks put there before
// it, and adds the service each returns to the subrequest's.
func (c Core) StartSubs(h ServiceStart) { c.e.starts = append(c.e.starts, h) }

// Register has h handle the events of the given kinds; a kind has one Handler. With no
// kind, h handles no event and only wraps up (a WrapUpper).
func (c Core) Register(h Handler, kinds ...EvKind) {
	c.e.register(h, kinds...)
}

// Handler is the Handler registered for kind k, nil when none is (as when a mechanism
// with one handler for several settings, as the pools, meets its first).
func (c Core) Handler(k EvKind) Handler { return c.e.on[k] }

// SteadyAllocs measures the heap allocations of m's event loop in steady state: a new
// engine of m handles warmup events, so that its pools, queues and heap reach their size,
// then runs of n events each, and allocs is the mean count per run, rounded down as
// testing.AllocsPerRun's (a new peak of slots in flight grows a slot's array now and then,
// once, never per request). ok is false when the
// model ran out of events first. The event loop allocates nothing per request
// (docs/performance.md): sim's tests and each mechanism's hold a model of theirs to 0.
func SteadyAllocs(m *Model, warmup, n, runs int) (allocs float64, ok bool) {
	e := newEngine(m)
	for range warmup {
		if !e.step() {
			return 0, false
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	steps := func() bool {
		for range n {
			if !e.step() {
				return false
			}
		}
		return true
	}
	if !steps() { // one run first, as testing.AllocsPerRun does
		return 0, false
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if !steps() {
			return 0, false
		}
	}
	runtime.ReadMemStats(&after)
	return float64((after.Mallocs - before.Mallocs) / uint64(runs)), true
}
