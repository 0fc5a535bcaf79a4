package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shardsim/shardsim/keyspace"
)

// Run simulates m and returns what it recorded. Run is deterministic: the same model and
// seed give the same Result on any machine. It panics on a model that breaks the invariants
// the scenario loader guarantees (no nodes, a shard on a missing node, a zero window).
//
// A model is used by one run only: Run panics when given a model that has run before (its
// generators and planners keep the state that run left). Build a fresh model per run.
func Run(m *Model) *Result {
	if m.ran {
		panic("sim: this Model has already run, and its generators and planners hold that run's state; build a fresh model for every run")
	}
	m.ran = true
	e := newEngine(m)
	e.run()
	return e.res
}

// Failure reasons of an attempt, the core's own; the causes that mechanisms register
// (causes.go) follow them. Where an attempt's subrequests fail for several, the attempt
// fails for the greatest (subEnd); a timeout and a limited request fail whole.
const (
	failNone uint8 = iota
	failRejected
	failTimeout
	failLimited
)

// Kinds of request.
const (
	reqClient     uint8 = iota // a client's request
	reqBackground              // a background read (Core.SendBackground): nobody waits for it
)

// engine is the core of a run: the event heap, the streams' arrivals and their clients,
// routing and the nodes' queues, and the mechanisms that are on (doc.go says what a
// mechanism implements). Its state is grouped by owner: what belongs to one node or one shard (nodeTable,
// shardTable) stands apart from what is global (the heap, the slots), and what the run
// records (the recorder) from what it simulates.
type engine struct {
	m *Model
	h eventHeap
	// The groups below are embedded values: their fields cost the hot path nothing more
	// than the engine's own.
	recorder               // the Result and what builds it: the window cursor, the open windows, the sink's ring (recorder.go)
	streamTable            // the streams' state, and which arrives next (stream.go)
	nodeTable              // the nodes, their queues and cores (nodes.go)
	shardTable             // where each shard is served, its queue and its latency counts (shards.go)
	slotTable              // requests, subrequests and timers in flight, and what is kept by slot (slots.go)
	backlog                // what waits in all the queues, and its bound
	now         Time       // the time of the event being handled
	stopped     bool       // the run has stopped (saturated, or Model.Stop)
	aux         *rand.Rand // the engine's own draws: replica choice, cache jitter, sampling
	registry               // what the Settings registered: their events' Handlers, their window watchers (mechanism.go)
	gates                  // the request path's hooks of the mechanisms of Model.Mechanisms (mechanism.go)
	// part is this engine's share of a run on several workers: the nodes it serves, and
	// what it hands to the merge (parallel.go). nil: the engine serves every node.
	part *partition
}

// backlog counts the subrequests waiting in all queues (and the requests a rate limit or
// a row lock holds back) against the bound at which a run is saturated.
type backlog struct {
	queued, maxQueued int
}

// auxSeed is the stream id of the engine's own random numbers.
const auxSeed = 0x5eed_a0c5_11fe_2026

func newEngine(m *Model) *engine {
	checkModel(m)
	e := &engine{m: m, aux: rand.New(rand.NewPCG(m.Seed, auxSeed))}
	e.warmup = m.Warmup
	e.maxQueued = m.MaxQueued
	if e.maxQueued <= 0 {
		e.maxQueued = DefaultMaxQueued
	}
	e.nShards = len(m.ShardNode)
	e.nNodes = len(m.Nodes)
	e.grow(m)     // the table's shards that Settings add during the run: first
	e.ownShards() // then the mechanisms' own shards (a migration's new layout's)
	e.res = newResult(m, e.nShards)
	e.wMask = -1
	if m.Sink != nil {
		e.res.ShardBusy, e.res.ShardOps, e.res.ShardMaxQueue = nil, nil, nil
		e.initSink(m, e.growing)
	}
	e.nodeTable = newNodeTable(m, e.res)
	e.trackNode = e.growing // followers (Core.SetReplicas) and moves (Core.MoveShard) set it too
	e.placeShards()
	e.streams = make([]streamState, len(m.Streams))
	e.initSettings()
	for i := range m.Streams {
		e.initStream(i)
	}
	e.startSettings()
	e.initDetail(m.Detail, e.streams)
	e.pickArrival()
	return e
}

// checkModel panics on a model that breaks the invariants the scenario loader
// guarantees.
func checkModel(m *Model) {
	if len(m.Nodes) == 0 || len(m.Nodes) > math.MaxInt16 || m.Window <= 0 || m.Duration <= 0 {
		panic(fmt.Sprintf("sim: invalid model: %d nodes, window %v, duration %v", len(m.Nodes), m.Window, m.Duration))
	}
}

// placeShards puts every shard on its node (the mechanisms' own included), and fills the
// shard table and the shards' results.
func (e *engine) placeShards() {
	m, r := e.m, e.res
	e.shardTable.init(e.nShards)
	for s := range r.Shards {
		r.Shards[s].Parent = -1
		r.Shards[s].SubLatency = e.shardLat[s*shardCounts : (s+1)*shardCounts : (s+1)*shardCounts]
	}
	e.place(m.ShardNode, 0, "shard %d on missing node %d")
	e.place(e.ownNodes, int(e.table), "a mechanism's shard %d on missing node %d")
}

// place puts shard off+s on node nodes[s] for every s; a missing node panics with msg.
func (e *engine) place(nodes []int, off int, msg string) {
	for s, n := range nodes {
		if n < 0 || n >= e.nNodes {
			panic(fmt.Sprintf("sim: "+msg, s, n))
		}
		e.res.Shards[off+s].Node, e.res.Shards[off+s].Home = n, n
		e.shardNode[off+s] = int32(n)
	}
}

// stopPoll is how many events pass between two calls of Model.Stop.
const stopPoll = 1 << 14

func (e *engine) run() {
	e.simulate()
	e.wrapUp()
}

// simulate handles every event, until none is left or the run stops.
func (e *engine) simulate() {
	for n := uint(1); e.step(); n++ {
		if n&(stopPoll-1) == 0 && e.m.Stop != nil && e.m.Stop() {
			e.halt(e.now)
			e.res.Partial = true
			break
		}
		if n&(stopPoll-1) == 0 && e.watch() {
			e.halt(e.now)
			e.res.Decided = true
			break
		}
	}
}

// halt stops the run at now: nothing further is simulated, and requests still in flight
// are neither completed nor counted as errors.
func (e *engine) halt(now Time) {
	e.stopped = true
	e.res.Elapsed = max(min(now, e.m.Duration), 1)
	e.unbusyAfter(e.res.Elapsed, &e.h, e.subs.items)
}

// unbusyAfter takes out of the busy series the service that the subrequests in service at
// a stop would have given after it: those whose ends are in heap h, in their slots subs.
// start counts a subrequest's whole service, up to the end of the run, when it begins; a
// run that stops early covers nothing after stop (its capacity ends there, see
// Result.WindowSpan), so that service must not count either, or a node busy to the stop
// would be more than 100% loaded.
func (r *recorder) unbusyAfter(stop Time, h *eventHeap, subs []subreq) {
	evs := h.ev
	if h.held && len(evs) > 0 {
		evs = evs[1:] // the root was handed out: its subrequest has finished
	}
	for _, ev := range evs {
		if ev.kind != evDone || ev.at <= stop {
			continue
		}
		sub := &subs[ev.idx]
		if ev.at-sub.service >= r.res.Duration {
			continue // began after the end of the run: never counted
		}
		r.spreadBusy(stop, min(ev.at, r.res.Duration), sub.shard, sub.node, -1)
	}
}

// step handles the earliest event; it reports false when none is left or the run has
// stopped.
func (e *engine) step() bool {
	if e.stopped {
		return false
	}
	if i := e.nextStream; i >= 0 {
		st := &e.streams[i]
		if e.h.len() == 0 || st.at < e.h.ev[0].at || (st.at == e.h.ev[0].at && st.seq < e.h.ev[0].seq) {
			if st.at >= e.wEnd {
				e.setWindow(st.at)
			}
			e.now = st.at
			e.arrive(st.at, i)
			return true
		}
	} else if e.h.len() == 0 {
		return false
	}
	// The earliest event leaves the heap lazily: its handler's first new event takes its
	// place (one sift-down instead of a pop and a push), or it is popped afterwards.
	ev := e.h.hold()
	if ev.at >= e.wEnd {
		e.setWindow(ev.at)
	}
	e.now = ev.at
	if ev.kind == evDone {
		// The common event: the others are handled apart (rare).
		e.done(ev.at, ev.idx)
	} else {
		e.rare(ev)
	}
	e.h.release()
	return true
}

// rare handles an event other than the end of a subrequest's service. The client's are the
// core's own, as evDone is: a timeout (one timer, or a stream's queue of them, timers.go), a
// retried attempt reaching the nodes, a rate limit letting its held requests go (client.go),
// a closed-loop client's next request (closed.go). The kinds made by NewEventKind go to the
// Handler a Setting registered for them.
func (e *engine) rare(ev event) {
	switch ev.kind {
	case evTimer:
		tm := e.timers.items[ev.idx]
		e.timers.put(ev.idx)
		e.timeout(ev.at, tm)
	case evTimers:
		e.timersDue(ev.at, ev.idx)
	case evSend:
		e.sendEvent(ev.at, ev.idx)
	case evRelease:
		e.releaseHeld(ev.at, ev.idx)
	case evIssue:
		e.issueClosed(ev.at, ev.idx)
	default:
		e.on[ev.kind].Handle(Core{e}, ev.at, ev.idx)
	}
}

// arrive issues stream i's pending request, whose subrequests reach their nodes now
// (issue time + network), and schedules the stream's next arrival.
func (e *engine) arrive(now Time, i int) {
	st := &e.streams[i]
	s := st.s
	issue := st.next
	rowTime := int64(issue)
	if s.Age != nil {
		rowTime -= s.Age.Draw(st.fld)
	}
	for f, g := range s.Fields {
		if g != nil {
			st.fields[f] = g.Next(st.fld, rowTime)
		}
	}
	if st.point != nil {
		st.visits = st.point.Plan(st.visits[:0], st.fld, st.fields, rowTime) // a direct call
	} else {
		st.visits = s.Planner.Plan(st.visits[:0], st.fld, st.fields, rowTime)
	}

	if w := e.window(issue); w >= 0 {
		st.out.Win[w].Offered++
	}
	counted := issue >= e.m.Warmup
	if counted {
		out := st.out
		out.Offered++
		out.Subrequests += int64(len(st.visits))
		out.MaxFanout = max(out.MaxFanout, len(st.visits))
		for _, v := range st.visits {
			out.Partitions += int64(v.Partitions)
			out.RowsRead += v.Rows
		}
	}
	// Schedule the next arrival before serving, so the heap order does not depend on how
	// many subrequests this request has (a closed-loop stream has none: see think).
	if next := st.after; next != never {
		e.schedule(st, next)
		st.after = e.arrivalAfter(st, next)
	} else {
		st.at = never
	}
	e.pickArrival()
	sample := false
	if d := st.det; d != nil && counted {
		if d.skip--; d.skip <= 0 {
			sample = true
		}
	}
	if st.plain && len(st.visits) == 1 && !sample {
		e.sendSolo(now, st, issue)
		return
	}
	e.issueSlotted(now, st, issue, counted, sample)
}

// issueSlotted sends stream st's request, issued at issue and just planned, which takes a
// request slot: it has several visits or none, detection sampled it, or a mechanism
// stands in its way (a RequestTaker, the client's rate limit, row locks, retries).
func (e *engine) issueSlotted(now Time, st *streamState, issue Time, counted, sample bool) {
	ri := e.reqs.take()
	shard := int32(-1)
	if len(st.visits) > 0 {
		shard = st.visits[0].Shard
	}
	e.newRequest(ri, issue, now, int32(st.index), counted, shard)
	if st.needKey {
		e.setKey(ri, keyID(st))
	}
	if len(e.watches) > 0 {
		e.watchIssue(st, ri)
	}
	if sample {
		e.observe(st, ri, e.aux)
	}
	if st.plain {
		e.sendPlain(now, ri, st)
		return
	}
	if st.keep {
		e.keepVisits(ri, st.visits)
	}
	if st.taker != nil && st.taker.Take(Core{e}, now, ri) {
		return
	}
	if st.gates != nil {
		e.sendGated(now, ri, st, 0)
		return
	}
	if st.limit != nil {
		e.admit(now, ri)
		return
	}
	e.send(now, ri, st.visits)
}

// newRequest fills slot ri with a request of stream i issued at issue whose first attempt
// reaches its nodes at now. Fields are stored one by one into the slot: a composite
// literal is built on the stack and copied in 16-byte moves, whose loads cannot be
// forwarded from the smaller stores that built it, a stall of a dozen cycles on the
// hottest path.
func (e *engine) newRequest(ri int32, issue, now Time, i int32, counted bool, shard int32) {
	r := &e.reqs.items[ri]
	*r = request{}
	r.issue, r.done, r.stream, r.counted, r.shard = issue, now, i, counted, shard
}

// Subrequests that no request slot waits for carry a negative request: noReq for one
// that nobody waits for (Core.Follow, Copy, Apply, Detach: its attempt marks which, see
// copyMark), and soloReq - stream for a solo, the one subrequest of a plain request (see
// sendSolo).
const (
	noReq   = -1
	soloReq = -2
)

// sendSolo is sendPlain for a plain request with one visit that detection did not sample:
// the most common request of all. It takes no request slot: its subrequest carries the
// stream, and e.issues the issue time, which is all its completion needs (finishSolo). If
// it fails instead (a full queue, a partition limit), promote gives it a slot first.
func (e *engine) sendSolo(now Time, st *streamState, issue Time) {
	if issue >= e.m.Warmup {
		st.out.Attempts++
	}
	v := st.visits[0]
	if e.part != nil && !e.part.owns[e.shardNode[v.Shard]] {
		e.serviceTime(st, st.s.Cost, v.Partitions) // another worker serves it (parallel.go)
		return
	}
	si := e.newSub(st, v, soloReq-int32(st.index), e.shardNode[v.Shard], 1)
	for int(si) >= len(e.issues) {
		e.issues = append(e.issues, 0)
	}
	e.issues[si] = issue
	e.reach(now, si)
}

// newSub takes a subrequest slot for visit v of a request of stream st (req), served on
// node for the given attempt, and draws its service time. The fields are stored one by
// one, as newRequest's.
func (e *engine) newSub(st *streamState, v keyspace.Visit, req, node int32, attempt uint8) int32 {
	si := e.subs.take()
	sub := &e.subs.items[si]
	sub.service = e.serviceTime(st, st.s.Cost, v.Partitions)
	if v.Rows != 0 {
		sub.service += rowService(v.Rows, st.s.RowCost)
	}
	sub.req, sub.shard, sub.parts = req, v.Shard, v.Partitions
	sub.node, sub.attempt, sub.write = int16(node), attempt, st.s.Op == Write
	if len(e.watches) > 0 {
		e.watchNewSub(st, si)
	}
	return si
}

// MaxRowService bounds the time a subrequest spends on its rows, 10000 days (the longest
// run): rows x row cost past it would leave the clock's 2^63 nanoseconds. Validation
// refuses a scenario whose sampled scans come near it (compile.Work); the engine clamps what
// a sample missed rather than overflow.
const MaxRowService = 10000 * 24 * Hour

// clockEnd is the latest time a subrequest may end: 2^62 ns, about 146 years, leaving the
// delays added to an event's time (each at most a day, docs/scenario.md) room below 2^63.
// A run drains the work queued by its end; work queued past clockEnd saturates it (start).
const clockEnd = Time(1) << 62

// rowService is rows x cost, at most MaxRowService.
func rowService(rows int64, cost Time) Time {
	if cost > 0 && rows > int64(MaxRowService/cost) {
		return MaxRowService
	}
	return Time(rows) * cost
}

// promote gives solo subrequest si, which reached its node at now (its arrival), the
// request slot sendPlain would have given it, so that it can fail the ordinary way.
func (e *engine) promote(now Time, si int32) {
	sub := &e.subs.items[si]
	stream := soloReq - sub.req
	issue := e.issues[si]
	ri := e.reqs.take()
	e.newRequest(ri, issue, now, stream, issue >= e.m.Warmup, sub.shard)
	r := &e.reqs.items[ri]
	r.attempt, r.live, r.plain, r.pending, r.inflight = 1, true, true, 1, 1
	sub.req = ri
}

// finishSolo records the success of solo subrequest si, served until now.
func (e *engine) finishSolo(now Time, si int32, req int32) {
	st := &e.streams[soloReq-req]
	issue, t := e.issues[si], now+e.m.Network
	if e.ended != nil {
		e.ended.Ended(Core{e}, issue, t) // (EndWatcher)
	}
	e.recordSuccess(st, issue, issue >= e.m.Warmup, t)
}

// sendBackground sends, at now, a copy of request ri's database read that nobody waits
// for (Core.SendBackground).
func (e *engine) sendBackground(now Time, ri int32) {
	r := e.reqs.items[ri]
	rr := e.reqs.take()
	// counted only says whether send counts its database read in the stream's totals; a
	// background read has no outcome of its own.
	e.reqs.items[rr] = request{issue: r.issue, done: now, stream: r.stream, kind: reqBackground, counted: r.counted, shard: r.shard}
	e.setKey(rr, e.keys[ri])
	e.keepVisits(rr, e.visits[ri])
	e.send(now, rr, e.visits[rr])
}

// sendPlain is send for the first and only attempt of a request of a plain stream (no
// client timeout, retry or limit, no cache, no replica to read from or write to): the
// common case, kept short because every request of most scenarios takes it.
func (e *engine) sendPlain(now Time, ri int32, st *streamState) {
	r := &e.reqs.items[ri]
	if r.counted {
		st.out.Attempts++
	}
	visits := st.visits
	r.attempt = 1
	if len(visits) == 0 {
		e.attemptEnd(ri)
		e.release(ri)
		return
	}
	r.live, r.plain = true, true
	n := int32(len(visits))
	if e.part != nil {
		n = e.part.sendPlain(e, ri, st) // the visits on this worker's nodes (parallel.go)
	}
	r.pending, r.inflight = n, n
	for _, v := range visits {
		node := e.shardNode[v.Shard]
		if e.part != nil && !e.part.owns[node] {
			e.serviceTime(st, st.s.Cost, v.Partitions) // another worker serves it
			continue
		}
		e.reach(now, e.newSub(st, v, ri, node, 1))
	}
	if n == 0 {
		e.part.elsewhere(e, ri, r) // no visit on this worker's nodes
	}
}

// send starts an attempt of request ri, whose subrequests reach their nodes now.
func (e *engine) send(now Time, ri int32, visits []keyspace.Visit) {
	r := &e.reqs.items[ri]
	st := &e.streams[r.stream]
	s := st.s
	r.attempt++
	r.live, r.fail, r.done = true, failNone, now
	sent := now - e.m.Network // the attempt left the client
	if r.kind == reqClient {
		e.countAttempt(st, r, sent)
	}
	if len(visits) == 0 {
		r.live = false
		e.attemptEnd(ri)
		e.release(ri)
		return
	}
	if r.lead || r.kind == reqBackground {
		st.taker.Sent(Core{e}, now, ri) // (RequestTaker)
	}
	if s.Client.Timeout > 0 && r.kind == reqClient {
		e.armTimeout(st, ri, sent+s.Client.Timeout)
	}
	r.pending = int32(len(visits))
	r.inflight += int32(len(visits))
	attempt := r.attempt
	for _, v := range visits {
		node := e.shardNode[v.Shard]
		if e.readAt != nil && s.Op != Write {
			node = e.readAt.ReadNode(Core{e}, node)
		}
		e.reach(now, e.newSub(st, v, ri, node, uint8(attempt)))
	}
}

// countAttempt counts an attempt of client request q of stream st, which left the client
// at sent: the attempts, and the retries among them.
func (r *recorder) countAttempt(st *streamState, q *request, sent Time) {
	if q.counted {
		st.out.Attempts++
	}
	if q.attempt > 1 {
		if q.counted {
			st.out.Retries++
		}
		if w := r.window(sent); w >= 0 {
			st.out.Win[w].Retries++
		}
	}
}

// armTimeout sets the client's timer for request ri's current attempt, due at deadline.
// The timer does not pin the request's slot: it carries the slot's generation and the
// deadline, and does nothing if the request has finished meanwhile.
func (e *engine) armTimeout(st *streamState, ri int32, deadline Time) {
	for int(ri) >= len(e.deadlines) {
		e.deadlines = append(e.deadlines, 0)
		e.gens = append(e.gens, 0)
	}
	e.deadlines[ri] = deadline
	e.setTimer(st, timer{req: ri, attempt: e.reqs.items[ri].attempt, gen: e.gens[ri]}, deadline)
}

// serviceTime draws the CPU time of a subrequest that works on k partitions at a mean
// cost of c each: the sum of k draws of one partition's service time, drawn exactly in
// distribution. Constant: k times c. Exponential: c times one Gamma(k) variate (sumExp),
// in constant time. Lognormal: the sum of k lognormal draws (no closed form exists for
// the sum, and the approximations that avoid it, Fenton-Wilkinson's for one, are not
// exact), so its cost grows with k.
func (e *engine) serviceTime(st *streamState, c Time, k int32) Time {
	s := st.s
	switch s.Service.Kind {
	case Constant:
		return c * Time(k)
	case Lognormal:
		mu := st.mu
		if c != s.Cost {
			mu += math.Log(float64(c) / float64(s.Cost))
		}
		var t float64
		for range k {
			t += math.Exp(mu + st.sigma*st.svc.NormFloat64())
		}
		return Time(t + 0.5)
	default:
		if k == 1 { // a point request: no call
			return Time(st.svc.ExpFloat64()*float64(c) + 0.5)
		}
		return Time(sumExp(st.svc, k)*float64(c) + 0.5)
	}
}

// gammaFrom is the number of exponential draws above which sumExp draws their sum as one
// Gamma variate instead. An ExpFloat64 costs about 5 ns and the Gamma sampler about 11 ns
// whatever k (BenchmarkSumExp), so from three draws on one Gamma variate is cheaper; but
// below five the saving is a few nanoseconds, and keeping the k draws there keeps the
// random numbers, and so the results, of subrequests over a few partitions (a read of
// a hot key's copies) what they were.
const gammaFrom = 4

// sumExp returns the sum of k independent Exp(1) variates, that is a Gamma(k, 1) variate,
// exactly in distribution. Up to gammaFrom it adds k exponential draws; above, it draws
// one Gamma(k) variate by Marsaglia and Tsang's method ("A simple method for generating
// gamma variables", ACM TOMS 26(3), 2000), whose cost does not grow with k: a scan
// subrequest over a thousand partitions costs one draw, not a thousand.
func sumExp(r *rand.Rand, k int32) float64 {
	if k <= gammaFrom {
		var t float64
		for range k {
			t += r.ExpFloat64()
		}
		return t
	}
	d := float64(k) - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		x2 := x * x
		// The squeeze accepts about 98% of draws without a logarithm.
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// reach handles subrequest si arriving at its node at time now.
func (e *engine) reach(now Time, si int32) {
	if e.admitting && !e.admitAtNode(now, si) {
		return
	}
	sub := &e.subs.items[si]
	ni := int(sub.node)
	n := &e.nodes[ni]
	if n.busy < n.cores {
		e.start(now, si, n, 0)
		return
	}
	if n.limit > 0 && n.q.Len() >= n.limit && sub.attempt != copyMark {
		e.queueRefused(now, si)
		return
	}
	e.touchQueue(now, ni, n)
	e.touchShardQueue(now, int(sub.shard))
	if int(si) >= len(e.arrived) {
		e.growArrived(si)
	}
	e.arrived[si] = now // for its time at the node, once it starts (see start)
	n.q.Push(si)
	e.shardQ[sub.shard]++
	if e.queued++; e.queued > e.maxQueued && !e.stopped {
		e.saturate(now)
	}
	w := e.window(now)
	if w >= 0 {
		idx := w*e.nNodes + ni
		e.res.NodeMaxQueue[idx] = max(e.res.NodeMaxQueue[idx], int32(n.q.Len()))
		sidx := (w&e.wMask)*e.nShards + int(sub.shard)
		e.res.ShardMaxQueue[sidx] = max(e.res.ShardMaxQueue[sidx], e.shardQ[sub.shard])
	}
}

// admitAtNode runs subrequest si, which reached its node at now, past what may turn it
// away or hold it before the node's queue: the SubAdmit hooks (a partition limit,
// mechanisms/limits; an index partition's limit and push-back, mechanisms/index), which a
// subrequest a node gate held and passed on has passed, then the node gates of the
// mechanisms of Model.Mechanisms (mechanism.go). It reports whether si goes on to the
// queue; false: it was refused, or a gate holds it. Only a run with one of them calls it
// (admitting).
func (e *engine) admitAtNode(now Time, si int32) bool {
	sub := &e.subs.items[si]
	if sub.req == noReq {
		return true
	}
	if !e.amongGates(si) {
		for _, a := range e.admits {
			if !a.Admit(Core{e}, now, si) {
				return false // refused, and ended (Core.Refuse, Core.Reject)
			}
		}
	}
	return len(e.atNode) == 0 || e.enterGates(now, si)
}

// queueRefused handles subrequest si, which reached its node at now and found its queue
// full: it fails, and its attempt with it (an Apply's write goes back to its Applier).
func (e *engine) queueRefused(now Time, si int32) {
	sub := &e.subs.items[si]
	if sub.req == noReq && sub.attempt == applyMark {
		s := *sub
		e.subs.put(si)
		e.applier.Refused(Core{e}, now, int(s.shard), s.parts, s.service) // (Core.Apply)
		return
	}
	if sub.req != noReq && now >= e.m.Warmup {
		e.res.Shards[sub.shard].Rejected++
	}
	if sub.req <= soloReq {
		e.promote(now, si)
	}
	for _, h := range e.ends {
		if d, ok := h.(SubDrop); ok {
			d.Dropped(Core{e}, now, si)
		}
	}
	ri, attempt := sub.req, int32(sub.attempt)
	e.subs.put(si)
	if ri >= 0 {
		e.subEnd(ri, attempt, now, failRejected)
	}
}

// saturate stops a run whose backlog has passed the bound: the offered load exceeds what
// the nodes serve.
func (e *engine) saturate(now Time) {
	e.res.Saturated, e.res.SaturatedAt, e.res.Backlog = true, now, e.queued
	e.halt(now)
}

// start puts subrequest si, which has waited for wait, on a core of node n at time now.
// Its time at the node, wait plus its service (and what a ServiceStart adds to it), is known
// from here and counted now.
func (e *engine) start(now Time, si int32, n *nodeState, wait Time) {
	sub := &e.subs.items[si]
	if len(e.starts) > 0 {
		sub.service += e.startExtra(now, si, n) // its node's own CPU (ServiceStart)
	}
	if sub.service > clockEnd-now {
		// Its end would leave the clock: the work queued at the node outlasts the longest
		// time the engine keeps (row_cost over a long history queues years of service).
		// The offered load exceeds what the node serves; the run stops as saturated, at
		// its end at the latest (docs/scenario.md, "Overload").
		e.saturate(min(now, e.m.Duration))
		return
	}
	n.busy++
	end := now + sub.service
	e.h.push(end, si)
	if sub.req != noReq {
		if now-wait >= e.warmup { // arrived after the warmup
			e.countShardLatency(sub.shard, wait+sub.service)
		}
	} else if sub.attempt == copyMark && e.work != nil {
		e.work.CopyStarted(Core{e}, now, sub.service) // a copy batch's CPU (WorkWatcher)
	}
	if now >= e.m.Duration {
		return
	}
	// The shard's totals (Ops, Busy) are the sums of these series, taken in wrapUp.
	w := e.window(now)
	e.res.ShardOps[(w&e.wMask)*e.nShards+int(sub.shard)]++
	if sub.write {
		e.countWrite(now, sub)
	}
	// Attribute the busy interval [now, end) to the windows it overlaps, within the run.
	if end <= e.wEnd && w == e.wIdx {
		e.res.ShardBusy[(w&e.wMask)*e.nShards+int(sub.shard)] += sub.service
		if e.trackNode {
			e.res.NodeBusy[w*e.nNodes+int(sub.node)] += sub.service
		}
		return
	}
	e.spreadBusy(now, min(end, e.m.Duration), sub.shard, sub.node, 1)
}

// countWrite counts the row that write subrequest sub, whose service starts within the
// run at now, adds to its shard, by shard and by writing stream, and tells the WorkWatcher
// of its CPU.
func (e *engine) countWrite(now Time, sub *subreq) {
	e.res.Shards[sub.shard].Rows++
	// The writing stream: a solo's carries it in its request, a request slot holds it.
	var rows []int64
	switch {
	case sub.req >= 0:
		rows = e.streams[e.reqs.items[sub.req].stream].out.ShardRows
	case sub.req <= soloReq:
		rows = e.streams[soloReq-sub.req].out.ShardRows
	}
	if rows != nil {
		rows[sub.shard]++
	}
	if e.work != nil {
		e.work.WriteStarted(Core{e}, now, sub.shard, sub.service) // (WorkWatcher)
	}
}

// spreadBusy adds sign times the busy interval [t, stop) of a subrequest of shard sh on
// node to the busy series of the windows it overlaps.
func (r *recorder) spreadBusy(t, stop Time, sh int32, node int16, sign Time) {
	res := r.res
	for t < stop {
		w := int(t / res.Window)
		wEnd := min(Time(w+1)*res.Window, stop)
		if r.ring != nil && w-r.ring.closedW > r.ring.ringN {
			r.growRing(w)
		}
		res.ShardBusy[(w&r.wMask)*len(res.Shards)+int(sh)] += sign * (wEnd - t)
		if r.trackNode {
			res.NodeBusy[w*len(res.Nodes)+int(node)] += sign * (wEnd - t)
		}
		t = wEnd
	}
}

// done handles the end of subrequest si's service at time now: its core goes to the
// node's queue, and the subrequest completes, unless a mechanism holds its completion
// (SubEnd, mechanism.go), which completes it later.
func (e *engine) done(now Time, si int32) {
	ni := int(e.subs.items[si].node)
	n := &e.nodes[ni]
	n.busy--
	e.startQueued(now, ni, n) // takes no subrequest slot, so si is still this one
	if len(e.ends) > 0 && !e.endSub(now, si, 0) {
		return
	}
	e.complete(now, si)
}

// complete ends subrequest si, whose service (and whatever a mechanism held it for after)
// ended at now: it frees its slot, and its request hears of it.
func (e *engine) complete(now Time, si int32) {
	req := e.subs.items[si].req
	if req <= soloReq {
		e.finishSolo(now, si, req)
		e.subs.put(si)
		return
	}
	sub := e.subs.items[si]
	e.subs.put(si)
	if req == noReq {
		// A Follow's subrequest, or a copy batch (Core.Copy), or an Apply's write.
		switch sub.attempt {
		case copyMark:
			e.copier.Copied(Core{e}, now, int(sub.shard), sub.parts)
		case applyMark:
			e.applier.Applied(Core{e}, now, int(sub.shard))
		}
		return
	}
	if r := &e.reqs.items[sub.req]; r.plain {
		// A plain request has one attempt and no timer: the short way of subEnd.
		r.done = max(r.done, now)
		if r.pending--; r.pending == 0 {
			e.finishPlain(sub.req, r)
		}
		return
	}
	if sub.write && e.wrote != nil {
		e.wrote.Wrote(Core{e}, now, int(e.reqs.items[sub.req].stream), sub.shard, sub.parts)
	}
	e.subEnd(sub.req, int32(sub.attempt), now, failNone)
}

// subEnd records that one subrequest of request ri's attempt ended at now: served, or
// failed for reason fail.
func (e *engine) subEnd(ri int32, attempt int32, now Time, fail uint8) {
	r := &e.reqs.items[ri]
	r.inflight--
	if attempt == r.attempt && r.live {
		r.fail = max(r.fail, fail)
		r.done = max(r.done, now)
		r.pending--
		if r.pending == 0 && !e.late(ri, r) {
			r.live = false
			e.attemptEnd(ri)
		}
	}
	e.release(ri)
}

// late reports whether the answer to request ri's attempt reaches the client after its
// deadline: then the client has already given up, and the attempt's timer, still pending,
// records the timeout.
func (e *engine) late(ri int32, r *request) bool {
	return r.kind == reqClient && e.streams[r.stream].s.Client.Timeout > 0 && r.done+e.m.Network > e.deadlines[ri]
}

// attemptEnd handles the end of request ri's current attempt: its last subrequest ended at
// r.done, and the client hears of it a network delay later.
func (e *engine) attemptEnd(ri int32) {
	r := &e.reqs.items[ri]
	if e.part != nil && e.part.isSplit(ri) {
		e.part.join(e, ri, r) // its other visits are other workers' (parallel.go)
		r.finished = true
		return
	}
	t := r.done + e.m.Network
	if retries(r.fail) && e.retry(ri, t) {
		return
	}
	e.finish(ri, t, r.fail)
}

// finishPlain is finish for a plain request whose last subrequest was served: the
// common case, kept short.
func (e *engine) finishPlain(ri int32, r *request) {
	if e.part != nil && e.part.isSplit(ri) {
		e.part.join(e, ri, r) // its other visits are other workers' (parallel.go)
		e.reqs.put(ri)
		return
	}
	t := r.done + e.m.Network
	if r.fail != failNone {
		e.finish(ri, t, r.fail)
		e.reqs.put(ri)
		return
	}
	e.recordRequest(ri, r, t)
	if r.sampled {
		e.unsample(e.streams[r.stream].det, ri, r)
	}
	e.reqs.put(ri)
}

// recordSuccess records the latency of a request of stream st issued at issue, whose
// answer reached its client at t, in its window's statistics and, if counted (issued
// after the warmup), the run's; it returns the latency.
func (r *recorder) recordSuccess(st *streamState, issue Time, counted bool, t Time) Time {
	out := st.out
	lat := t - issue
	us := micros(lat)
	if w := r.window(t); w >= 0 {
		win := &out.Win[w]
		win.Completed++
		win.Max = max(win.Max, lat)
		r.countWindow(st, w, us)
	}
	if st.fine != nil {
		r.countFine(st, t, us)
	}
	if counted {
		out.Completed++
		st.latCounts[runLayout.index(us)]++
		out.LatencySum += float64(lat)
		out.LatencyMax = max(out.LatencyMax, lat)
	}
	return lat
}

// recordRequest is recordSuccess for request ri, and its sample for detection.
func (e *engine) recordRequest(ri int32, r *request, t Time) {
	st := &e.streams[r.stream]
	if e.ended != nil {
		e.ended.Ended(Core{e}, r.issue, t) // (EndWatcher)
	}
	lat := e.recordSuccess(st, r.issue, r.counted, t)
	if r.counted && r.sampled {
		if e.part != nil {
			e.part.logSample(e, st, ri, r, t, lat) // replayed in order by the merge (parallel.go)
			return
		}
		e.sample(st, ri, r, lat)
	}
}

// finish records the outcome of request ri, which reached its client at t.
func (e *engine) finish(ri int32, t Time, fail uint8) {
	r := &e.reqs.items[ri]
	r.finished = true
	st := &e.streams[r.stream]
	if r.lead || r.kind == reqBackground {
		st.taker.Led(Core{e}, ri, t, fail)
	}
	if r.kind == reqBackground {
		return
	}
	if st.gates != nil {
		e.leaveGates(st, t, ri)
	}
	if fail == failNone {
		e.recordRequest(ri, r, t)
	} else {
		if e.ended != nil {
			e.ended.Ended(Core{e}, r.issue, t) // (EndWatcher)
		}
		countFailure(st.out, e.window(t), r.counted, fail)
	}
	if r.sampled {
		e.unsample(st.det, ri, r)
	}
	if st.closed {
		e.think(st, t)
	}
}

// countFailure counts a request of the stream whose result is out that failed for reason
// fail, reaching its client in window w (-1: past the end), in the window's errors and,
// if counted (issued after the warmup), the run's.
func countFailure(out *StreamResult, w int, counted bool, fail uint8) {
	if w >= 0 {
		win := &out.Win[w]
		win.Errors++
		switch fail {
		case failTimeout:
			win.TimedOut++
		case failRejected:
			win.Rejected++
		case failLimited:
			win.Limited++
		default:
			win.Failed[fail-failCauses]++
		}
	}
	if !counted {
		return
	}
	switch fail {
	case failRejected:
		out.Rejected++
	case failTimeout:
		out.TimedOut++
	case failLimited:
		out.Limited++
	default:
		out.Failed[fail-failCauses]++
	}
}

// micros converts a latency to the histograms' unit, rounding up and clamping to their range.
func micros(t Time) int64 {
	us := int64((t + Microsecond - 1) / Microsecond)
	return min(max(us, 1), histMaxMicros)
}

// wrapUp ends the run's bookkeeping: the queues carried to the end, the mechanisms' own
// figures, then the totals the core derives from the series.
func (e *engine) wrapUp() {
	last := e.res.Elapsed - 1 // a stopped run's backlog is not carried past the stop
	for ni := range e.nodes {
		e.touchQueue(last, ni, &e.nodes[ni])
	}
	for sh := range e.shardQ {
		e.touchShardQueue(last, sh)
	}
	for _, h := range e.all {
		if w, ok := h.(WrapUpper); ok {
			w.WrapUp(Core{e})
		}
	}
	e.wrapWaits()
	e.shardTotals()
	e.shardLat = nil
	e.nodeTotals(e.m.Nodes, e.nodes)
	e.streamTotals(e.streams)
}
