package sim

import (
	"fmt"
	"hash/fnv"
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

type streamState struct {
	s     *Stream
	arr   *rand.Rand // arrivals
	fld   *rand.Rand // field values, ages and salts
	svc   *rand.Rand // service times
	cli   *rand.Rand // backoff jitter; nil unless the client retries
	next  Time       // issue time of the pending arrival
	after Time       // issue time of the arrival after it (see arrivalAfter), or never
	// The pending arrival reaches its nodes at (at, seq); at is Never when the stream is done.
	at     Time
	seq    uint64
	fields []uint64
	visits []keyspace.Visit
	// lognormal parameters of one partition's service time
	mu, sigma float64
	out       *StreamResult
	// keep: a request's visits are kept with it, because it may be sent again later
	// (retries, a queueing rate limit, a cache refresh).
	keep    bool
	needKey bool // every request needs its key identity (the cache)
	index   int
	limit   *limiter
	held    fifo                   // requests the rate limit holds back, in the order they leave
	relAt   Time                   // when the pending release event of held fires
	point   *keyspace.PointPlanner // the planner, when it plans point requests
	det     *streamDetect          // nil when the stream is not observed
	// plain: the stream's requests are sent once, as they are planned (see sendPlain).
	plain bool
	// Latency counts in the histograms' layouts (see hist.go): the run's, and the open
	// windows' by window (nil for a closed window or one without a success yet).
	latCounts []int64
	winCounts [][]int64
	// locks: the stream's row locks (nil: it takes none). closed: its requests come from
	// Clients closed-loop clients, who think for a draw of think between them.
	locks  *streamLocks
	closed bool
	think  delaySampler
	// Kept last, so that the fields every request reads keep their places in the struct.
	fine *fineState // nil without a detail range
	tq   timerQueue // the client's pending timeouts, in deadline order (timers.go)
}

// Failure reasons of an attempt, in increasing precedence.
const (
	failNone uint8 = iota
	failRejected
	failThrottled
	failTimeout
	failLimited
	failLock // waited longer than the lock timeout for a row lock
)

// Kinds of request.
const (
	reqClient  uint8 = iota // a client's request
	reqRefresh              // a cache refresh: a database read nobody waits for
)

// request is kept to 48 bytes, for the same reason as subreq; the fields few requests
// need (a key identity, a sample) live beside the pool, in engine.keys and engine.samples.
type request struct {
	issue Time // the client issued the request (its first attempt) at issue
	done  Time // latest end of the current attempt's subrequests so far
	// inflight counts the request's subrequests still at the nodes (of any attempt) and
	// its pending timer; the slot is reused once the request is finished and inflight is 0.
	stream   int32
	pending  int32 // subrequests of the current attempt not yet ended
	inflight int32
	attempt  int32
	next     int32 // next request waiting for the same cache fill (single-flight), or -1
	shard    int32 // the shard of its first visit
	fail     uint8
	kind     uint8
	counted  bool // issued after warmup
	live     bool // the current attempt is still awaited by the client
	finished bool // the outcome is recorded
	lead     bool // a cache miss whose read fills the cache
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

type nodeState struct {
	cores, busy int
	limit       int
	q           fifo
	lastW       int // last window whose max queue is up to date
}

type timer struct {
	req     int32
	attempt int32
	gen     uint32 // the generation of the request's slot when the timer was set
}

type engine struct {
	m          *Model
	res        *Result
	h          eventHeap
	streams    []streamState
	nodes      []nodeState
	shardNode  []int32 // the node serving each shard now
	shardQ     []int32 // subrequests of each shard waiting in its node's queue
	shardW     []int   // last window whose shard max queue is up to date
	reqs       pool[request]
	subs       pool[subreq]
	timers     pool[timer]
	visits     [][]keyspace.Visit // a kept request's visits, by request slot
	keys       []uint64           // a request's key identity (cache, sampled), by slot
	deadlines  []Time             // the client's deadline for a request's attempt, by slot
	gens       []uint32           // a slot's generation: how often it was reused since a timer
	samples    []int32            // where a sampled request's key values wait, by slot
	issues     []Time             // a solo's issue time, by subrequest slot (see sendSolo)
	arrived    []Time             // when a queued subrequest reached its node, by subrequest slot
	shardLat   []uint32           // every shard's SubLatency counts, one after another
	nShards    int                // shard ids the result arrays hold (splits included)
	nNodes     int
	nextStream int  // stream with the earliest pending arrival, or -1
	warmup     Time // m.Warmup, at hand for the per-subrequest count of start
	now        Time
	queued     int // subrequests waiting in all queues, and requests a rate limit holds back
	maxQueued  int
	stopped    bool
	// The window of the latest event, cached so the hot path does not divide.
	wIdx         int
	wStart, wEnd Time
	touchW       int // the window touchQueue carries queues into: wIdx, or the last past the end
	// Mitigations; nil when off.
	aux       *rand.Rand // the engine's own draws: replica choice, cache jitter, sampling
	cache     *cache
	limits    *partitionLimits
	split     *splits
	trackNode bool         // NodeBusy is recorded as the run goes (replicas, moves)
	coreLog   []coreChange // cores changed by actions
	perWindow bool         // windowEnd runs when a window ends
	// Windows before histOpen have their latency histograms built; histFree holds
	// counts arrays to reuse.
	histOpen int
	histFree [][]int64
	// detail is the fine-grained range (Model.Detail cut at the run's end) and fineN its
	// windows; fineN is 0 without one.
	detail Detail
	fineN  int
	// The migration (migrate.go); nil when none.
	mig *migState
	reb *rebState // a rebalance (rebalance.go); nil: none
	// Row locks (lock.go); nil and empty when no stream locks.
	locks    *lockTable
	lockw    []lockWait // by subrequest slot
	lockRows []lockRow  // by request slot
	// The window sink (sink.go); nil when the Result keeps the shard series. With one, the
	// shard series hold ringN windows, window w at slot w&wMask; without, wMask is -1 and
	// window w is at w.
	sink     WindowSink
	wMask    int
	ringN    int
	closedW  int // the last window handed to the sink
	sw       ShardWindow
	shardCap []Time // core time of each shard's node over the closed windows
}

// streamSeed derives a stream's random stream id from its name, so adding or reordering
// streams does not change the numbers another stream draws.
func streamSeed(name string, purpose uint64) uint64 {
	f := fnv.New64a()
	f.Write([]byte(name))
	return f.Sum64() ^ (purpose * 0x9e3779b97f4a7c15)
}

// auxSeed is the stream id of the engine's own random numbers.
const auxSeed = 0x5eed_a0c5_11fe_2026

func newEngine(m *Model) *engine {
	if len(m.Nodes) == 0 || len(m.Nodes) > math.MaxInt16 || m.Window <= 0 || m.Duration <= 0 {
		panic(fmt.Sprintf("sim: invalid model: %d nodes, window %v, duration %v", len(m.Nodes), m.Window, m.Duration))
	}
	nw := m.Windows()
	nShards := len(m.ShardNode)
	if m.Splitter != nil {
		nShards = max(nShards, m.Splitter.Shards())
	}
	var mig *migState
	if m.Migration != nil {
		if m.Splitter != nil || m.Limits != nil {
			panic("sim: a migration cannot be combined with shard splits or partition limits")
		}
		mig = newMig(m, nShards)
		nShards += mig.nNew
	}
	var reb *rebState
	if m.Rebalance != nil {
		if mig != nil || m.Splitter != nil || m.Limits != nil || m.Replicas > 0 {
			panic("sim: a rebalance cannot be combined with a migration, shard splits, partition limits or replicas")
		}
		reb = newReb(m)
	}
	e := &engine{m: m, nShards: nShards, nNodes: len(m.Nodes), maxQueued: m.MaxQueued, warmup: m.Warmup, mig: mig, reb: reb, wMask: -1}
	if mig != nil {
		mig.e = e
	}
	if e.maxQueued <= 0 {
		e.maxQueued = DefaultMaxQueued
	}
	r := &Result{
		Duration:      m.Duration,
		Warmup:        m.Warmup,
		Window:        m.Window,
		Windows:       nw,
		Elapsed:       m.Duration,
		Replicas:      m.Replicas,
		Streams:       make([]StreamResult, len(m.Streams)),
		Shards:        make([]ShardResult, e.nShards),
		Nodes:         make([]NodeResult, e.nNodes),
		ShardBusy:     make([]Time, shardCells(m, nw*e.nShards)),
		ShardOps:      make([]int64, shardCells(m, nw*e.nShards)),
		ShardMaxQueue: make([]int32, shardCells(m, nw*e.nShards)),
		NodeMaxQueue:  make([]int32, nw*e.nNodes),
		NodeBusy:      make([]Time, nw*e.nNodes),
		NodeCapacity:  make([]Time, nw*e.nNodes),
	}
	e.res = r
	if m.Sink != nil {
		r.ShardBusy, r.ShardOps, r.ShardMaxQueue = nil, nil, nil
		e.initSink()
	}
	e.nodes = make([]nodeState, e.nNodes)
	for i, n := range m.Nodes {
		if n.Cores < 1 {
			panic(fmt.Sprintf("sim: node %d has %d cores", i, n.Cores))
		}
		e.nodes[i] = nodeState{cores: n.Cores, limit: n.QueueLimit}
		r.Nodes[i].Cores = n.Cores
		if reb != nil && i >= m.Rebalance.First {
			// A node that joins later has no cores until then (rebalance.go).
			e.nodes[i].cores = 0
			e.coreLog = append(e.coreLog, coreChange{at: 0, node: i, cores: 0})
		}
	}
	e.shardNode = make([]int32, e.nShards)
	for s := range r.Shards {
		r.Shards[s].Parent = -1
	}
	for s, n := range m.ShardNode {
		if n < 0 || n >= e.nNodes {
			panic(fmt.Sprintf("sim: shard %d on missing node %d", s, n))
		}
		r.Shards[s].Node, r.Shards[s].Home = n, n
		e.shardNode[s] = int32(n)
	}
	if mig != nil {
		r.Migration = mig.res
		for s, n := range m.Migration.ShardNode {
			if n < 0 || n >= e.nNodes {
				panic(fmt.Sprintf("sim: new layout's shard %d on missing node %d", s, n))
			}
			sh := int(mig.off) + s
			r.Shards[sh].Node, r.Shards[sh].Home = n, n
			e.shardNode[sh] = int32(n)
		}
		if m.Migration.Cutover >= 0 && m.Migration.Cutover < m.Duration {
			e.h.pushKind(m.Migration.Cutover, 0, evCutover)
		}
	}
	e.shardQ = make([]int32, e.nShards)
	e.shardW = make([]int, e.nShards)
	e.shardLat = make([]uint32, e.nShards*shardCounts)
	for s := range r.Shards {
		r.Shards[s].SubLatency = e.shardLat[s*shardCounts : (s+1)*shardCounts : (s+1)*shardCounts]
	}
	e.aux = rand.New(rand.NewPCG(m.Seed, auxSeed))
	if m.Replicas >= e.nNodes {
		panic(fmt.Sprintf("sim: %d replicas need more than %d nodes", m.Replicas, e.nNodes))
	}
	e.trackNode = m.Replicas > 0 || m.Splitter != nil || reb != nil
	if reb != nil {
		r.Rebalance = reb.res
		for s, n := range m.ShardNode {
			if n >= m.Rebalance.First {
				panic(fmt.Sprintf("sim: shard %d on node %d, which joins later", s, n))
			}
		}
	}
	if m.Cache != nil {
		e.cache = newCache(m.Cache)
	}
	if m.Limits != nil {
		e.limits = newPartitionLimits(m.Limits, len(m.ShardNode), e.nShards)
	}
	if m.Splitter != nil {
		e.split = newSplits(e, m)
		e.perWindow = true
	}
	e.streams = make([]streamState, len(m.Streams))
	for i := range m.Streams {
		s := &m.Streams[i]
		st := &e.streams[i]
		st.s, st.index = s, i
		st.arr = rand.New(rand.NewPCG(m.Seed, streamSeed(s.Name, 1)))
		st.fld = rand.New(rand.NewPCG(m.Seed, streamSeed(s.Name, 2)))
		st.svc = rand.New(rand.NewPCG(m.Seed, streamSeed(s.Name, 3)))
		if s.Client.Retries > 0 {
			st.cli = rand.New(rand.NewPCG(m.Seed, streamSeed(s.Name, 4)))
		}
		if s.Client.Limit != nil {
			st.limit = newLimiter(s.Client.Limit)
		}
		st.keep = s.Client.Retries > 0 || (s.Client.Limit != nil && s.Client.Limit.Queue) || (s.UseCache && m.Cache != nil) || limitAction(m, i, true)
		st.point, _ = s.Planner.(*keyspace.PointPlanner)
		st.plain = !st.keep && s.Lock.Mean == 0 && s.Clients == 0 && s.Client.Limit == nil && s.Client.Timeout == 0 && !(s.UseCache && m.Cache != nil) &&
			!(m.ReadAny && s.Op != Write) && !(m.Replicas > 0 && s.Op == Write) && !limitAction(m, i, false)
		st.fields = make([]uint64, len(s.Fields))
		st.visits = make([]keyspace.Visit, 0, e.nShards)
		if s.Service.Kind == Lognormal {
			// For a lognormal with mean c and coefficient of variation v:
			// sigma^2 = ln(1 + v^2), mu = ln(c) - sigma^2/2.
			s2 := math.Log1p(s.Service.CV * s.Service.CV)
			st.sigma = math.Sqrt(s2)
			st.mu = math.Log(float64(s.Cost)) - s2/2
		}
		out := &r.Streams[i]
		out.Name, out.Op, out.RowsModeled = s.Name, s.Op, s.RowsModeled
		st.latCounts = make([]int64, runLayout.countsN)
		st.winCounts = make([][]int64, nw)
		out.Win = make([]WindowLatency, nw)
		if s.Op == Write {
			out.ShardRows = make([]int64, e.nShards)
		}
		st.out = out
		st.det = newStreamDetect(m, s)
		st.needKey = s.UseCache && m.Cache != nil
		st.at = never
		if s.Lock.Mean > 0 {
			if s.Op != Write || st.point == nil {
				panic(fmt.Sprintf("sim: stream %q has a lock, but only point writes take locks", s.Name))
			}
			st.locks = newStreamLocks(m, s)
			if e.locks == nil {
				e.locks = newLockTable(m.LockSlots)
			}
		}
		if s.Clients > 0 {
			// Each client thinks first, so that they do not all start at t = 0.
			st.closed, st.think, st.after = true, newDelaySampler(s.Think), never
			for range s.Clients {
				if t := st.think.draw(st.arr); t < m.Duration {
					e.h.pushKind(t+m.Network, int32(i), evIssue)
				}
			}
			continue
		}
		if t := Time(s.Arrivals.Next(st.arr, 0)); t < m.Duration {
			e.schedule(st, t)
			st.after = e.arrivalAfter(st, t)
		}
	}
	for i, a := range m.Actions {
		if a.At >= m.Duration {
			continue
		}
		at := a.At
		if a.Kind == SetLimit || a.Kind == SetCache {
			// A client-side setting changes at the client: the requests it issues from At
			// on reach the nodes, where the engine handles them, a network delay later.
			at += m.Network
		}
		e.h.pushKind(at, int32(i), evAction)
	}
	e.initDetail()
	e.pickArrival()
	return e
}

// limitAction reports whether an action may give stream i a rate limit (a queueing one,
// with queue).
func limitAction(m *Model, i int, queue bool) bool {
	for _, a := range m.Actions {
		if a.Kind == SetLimit && a.Stream == i && (!queue || (a.Limit != nil && a.Limit.Queue)) {
			return true
		}
	}
	return false
}

// never is a time after every event.
const never = Time(math.MaxInt64)

// schedule makes issue time t the stream's pending arrival. Arrivals take a sequence number
// from the event heap's counter, so the order of all events is (time, sequence) as if they
// were in the heap.
func (e *engine) schedule(st *streamState, t Time) {
	st.next = t
	st.at = t + e.m.Network
	e.h.seq++
	st.seq = e.h.seq
}

// arrivalAfter draws the issue time of the stream's arrival after the one at t, or never
// if it falls at or after the end of the run. The engine draws each arrival one ahead
// (st.after): the draws from st.arr are the same, in the same order, but the time of the
// pending arrival, which every step compares with the heap, is then known well before it
// is needed, instead of at the end of a chain of dependent floating-point operations
// whose latency a mispredicted comparison would wait for.
func (e *engine) arrivalAfter(st *streamState, t Time) Time {
	if next := Time(st.s.Arrivals.Next(st.arr, int64(t))); next < e.m.Duration {
		return next
	}
	return never
}

// pickArrival finds the stream whose pending arrival comes first. Each stream has exactly
// one pending arrival, so arrivals stay out of the heap: with a handful of streams a scan
// is cheaper than a push and a pop per request.
func (e *engine) pickArrival() {
	e.nextStream = -1
	if len(e.streams) == 1 {
		if e.streams[0].at != never {
			e.nextStream = 0
		}
		return
	}
	var best *streamState
	for i := range e.streams {
		st := &e.streams[i]
		if st.at == never {
			continue
		}
		if best == nil || st.at < best.at || (st.at == best.at && st.seq < best.seq) {
			best, e.nextStream = st, i
		}
	}
}

// stopPoll is how many events pass between two calls of Model.Stop.
const stopPoll = 1 << 14

func (e *engine) run() {
	for n := uint(1); e.step(); n++ {
		if n&(stopPoll-1) == 0 && e.m.Stop != nil && e.m.Stop() {
			e.halt(e.now)
			e.res.Partial = true
			break
		}
	}
	e.wrapUp()
}

// halt stops the run at now: nothing further is simulated, and requests still in flight
// are neither completed nor counted as errors.
func (e *engine) halt(now Time) {
	e.stopped = true
	e.res.Elapsed = max(min(now, e.m.Duration), 1)
	e.unbusyAfter(e.res.Elapsed)
}

// unbusyAfter takes out of the busy series the service that the subrequests in service at
// a stop would have given after it. start counts a subrequest's whole service, up to the
// end of the run, when it begins; a run that stops early covers nothing after stop (its
// capacity ends there, see Result.WindowSpan), so that service must not count either, or
// a node busy to the stop would be more than 100% loaded.
func (e *engine) unbusyAfter(stop Time) {
	evs := e.h.ev
	if e.h.held && len(evs) > 0 {
		evs = evs[1:] // the root was handed out: its subrequest has finished
	}
	for _, ev := range evs {
		if ev.kind != evDone || ev.at <= stop {
			continue
		}
		sub := &e.subs.items[ev.idx]
		if ev.at-sub.service >= e.m.Duration {
			continue // began after the end of the run: never counted
		}
		for t, end := stop, min(ev.at, e.m.Duration); t < end; {
			w := int(t / e.m.Window)
			wEnd := min(Time(w+1)*e.m.Window, end)
			e.res.ShardBusy[(w&e.wMask)*e.nShards+int(sub.shard)] -= wEnd - t
			if e.trackNode {
				e.res.NodeBusy[w*e.nNodes+int(sub.node)] -= wEnd - t
			}
			t = wEnd
		}
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
		// The common event, kept out of the jump table of rare's switch.
		e.done(ev.at, ev.idx)
	} else {
		e.rare(ev)
	}
	e.h.release()
	return true
}

// rare handles an event other than the end of a subrequest's service.
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
	case evAction:
		e.act(ev.at, ev.idx)
	case evMove:
		e.split.move(ev.at, int(ev.idx))
	case evRelease:
		e.releaseHeld(ev.at, ev.idx)
	case evLockRelease:
		e.lockRelease(ev.at, ev.idx)
	case evLockTimeout:
		e.lockTimeout(ev.at, ev.idx)
	case evIssue:
		e.issueClosed(ev.at, ev.idx)
	case evBackfill:
		e.backfillTick(ev.at)
	case evBackfillWrite:
		e.backfillWrite(ev.at, ev.idx)
	case evCutover:
		e.migCutover(ev.at)
	case evVerified:
		e.oldWritesEnd(ev.at)
	case evOutbox:
		e.outbox(ev.at)
	case evRebalance:
		e.rebalanceTick(ev.at, int(ev.idx))
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
		if e.split != nil {
			e.split.observe(st)
		}
		e.sendSolo(now, st, issue)
		return
	}

	ri := e.reqs.take()
	shard := int32(-1)
	if len(st.visits) > 0 {
		shard = st.visits[0].Shard
	}
	e.newRequest(ri, issue, now, int32(i), counted, shard)
	if st.needKey {
		e.setKey(ri, keyID(st))
	}
	if sample {
		e.observe(st, ri)
	}
	if e.split != nil {
		e.split.observe(st)
	}
	if st.plain {
		e.sendPlain(now, ri, st)
		return
	}
	if st.locks != nil {
		e.setLockRow(ri, st)
	}
	if st.keep {
		e.keepVisits(ri, st.visits)
	}
	if s.UseCache && e.cache != nil && e.cache.on && e.cacheRead(now, ri) {
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
	r.issue, r.done, r.stream, r.counted, r.next, r.shard = issue, now, i, counted, -1, shard
}

// Subrequests that no request slot waits for carry a negative request: followerReq for a
// follower's apply, and soloReq - stream for a solo, the one subrequest of a plain
// request (see sendSolo).
const (
	followerReq = -1
	soloReq     = -2
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
	return si
}

// MaxRowService bounds the time a subrequest spends on its rows, 10000 days (the longest
// run): rows x row cost past it would leave the clock's 2^63 nanoseconds. Validation
// refuses a scenario whose sampled scans come near it (build.Work); the engine clamps what
// a sample missed rather than overflow.
const MaxRowService = 10000 * 24 * Hour

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
	issue := e.issues[si]
	e.recordSuccess(st, issue, issue >= e.m.Warmup, now+e.m.Network)
}

// setKey records request ri's key identity.
func (e *engine) setKey(ri int32, k uint64) {
	for int(ri) >= len(e.keys) {
		e.keys = append(e.keys, 0)
	}
	e.keys[ri] = k
}

// keepVisits stores a copy of visits with request ri. The slot's slice is reused, so once
// the pool has grown this does not allocate.
func (e *engine) keepVisits(ri int32, visits []keyspace.Visit) {
	for int(ri) >= len(e.visits) {
		e.visits = append(e.visits, nil)
	}
	e.visits[ri] = append(e.visits[ri][:0], visits...)
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
	r.pending = int32(len(visits))
	r.inflight = int32(len(visits))
	for _, v := range visits {
		e.reach(now, e.newSub(st, v, ri, e.shardNode[v.Shard], 1))
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
		if r.counted {
			st.out.Attempts++
		}
		if r.attempt > 1 {
			if r.counted {
				st.out.Retries++
			}
			if w := e.window(sent); w >= 0 {
				st.out.Win[w].Retries++
			}
		}
	}
	if len(visits) == 0 {
		r.live = false
		e.attemptEnd(ri)
		e.release(ri)
		return
	}
	if r.lead || r.kind == reqRefresh {
		e.countBackend(st, r.counted, now)
	}
	if s.Client.Timeout > 0 && r.kind == reqClient {
		// The timer does not pin the request's slot: it carries the slot's generation and
		// the deadline, and does nothing if the request has finished meanwhile.
		for int(ri) >= len(e.deadlines) {
			e.deadlines = append(e.deadlines, 0)
			e.gens = append(e.gens, 0)
		}
		deadline := sent + s.Client.Timeout
		e.deadlines[ri] = deadline
		e.setTimer(st, timer{req: ri, attempt: r.attempt, gen: e.gens[ri]}, deadline)
	}
	r.pending = int32(len(visits))
	r.inflight += int32(len(visits))
	attempt := r.attempt
	for j, v := range visits {
		node := e.shardNode[v.Shard]
		if e.m.ReadAny && s.Op != Write {
			if k := e.aux.IntN(e.m.Replicas + 1); k > 0 {
				node = int32((int(node) + k) % e.nNodes)
			}
		}
		si := e.newSub(st, v, ri, node, uint8(attempt))
		if st.locks != nil {
			e.lockAcquire(now, si, e.lockKey(ri, j))
			continue
		}
		e.reach(now, si)
	}
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
	sub := &e.subs.items[si]
	if e.limits != nil && sub.req != followerReq && !e.lockPassed(si) && !e.limits.admit(now, int(sub.shard), sub.write, float64(sub.parts)) {
		if now >= e.m.Warmup {
			e.res.Shards[sub.shard].Throttled++
		}
		if sub.req <= soloReq {
			e.promote(now, si)
		}
		e.throttled(now, si)
		return
	}
	ni := int(sub.node)
	n := &e.nodes[ni]
	if n.busy < n.cores {
		e.start(now, si, n, 0)
		return
	}
	if n.limit > 0 && n.q.len() >= n.limit && sub.attempt != backfillMark {
		if sub.req == followerReq && sub.attempt == outboxMark {
			e.outboxRefused(now, si) // the copy goes back to the outbox (migrate.go)
			return
		}
		if sub.req != followerReq && now >= e.m.Warmup {
			e.res.Shards[sub.shard].Rejected++
		}
		if sub.req <= soloReq {
			e.promote(now, si)
		}
		ri, attempt := sub.req, int32(sub.attempt)
		e.subs.put(si)
		if ri >= 0 {
			e.subEnd(ri, attempt, now, failRejected)
		}
		return
	}
	e.touchQueue(now, ni, n)
	e.touchShardQueue(now, int(sub.shard))
	if int(si) >= len(e.arrived) {
		e.growArrived(si)
	}
	e.arrived[si] = now // for its time at the node, once it starts (see start)
	n.q.push(si)
	e.shardQ[sub.shard]++
	if e.queued++; e.queued > e.maxQueued && !e.stopped {
		e.saturate(now)
	}
	w := e.window(now)
	if w >= 0 {
		idx := w*e.nNodes + ni
		e.res.NodeMaxQueue[idx] = max(e.res.NodeMaxQueue[idx], int32(n.q.len()))
		sidx := (w&e.wMask)*e.nShards + int(sub.shard)
		e.res.ShardMaxQueue[sidx] = max(e.res.ShardMaxQueue[sidx], e.shardQ[sub.shard])
	}
}

// growArrived makes room in e.arrived for subrequest slot si (the pool has grown).
func (e *engine) growArrived(si int32) {
	for int(si) >= len(e.arrived) {
		e.arrived = append(e.arrived, 0)
	}
}

// countShardLatency counts lat, the time a subrequest of shard sh spends at its node (its
// wait and its service, known once it starts), in the shard's histogram, in units of
// 1,024 ns (a shift, where microseconds would take a division on the hottest path; see
// ShardResult.SubLatencyQuantile). Kept small enough to inline.
func (e *engine) countShardLatency(sh int32, lat Time) {
	e.shardLat[int(sh)*shardCounts+shardIndex(min(int64(lat>>shardLatShift), shardMaxMicros))]++
}

// saturate stops a run whose backlog has passed the bound: the offered load exceeds what
// the nodes serve.
func (e *engine) saturate(now Time) {
	e.res.Saturated, e.res.SaturatedAt, e.res.Backlog = true, now, e.queued
	e.halt(now)
}

// touchQueue carries a node's queue length into the windows since the last change, so a
// window in which the queue did not change still reports the backlog it held. It is called
// before every change of a queue and does nothing but compare in most calls, so that
// test is kept small enough to inline and the work is in carryQueue.
func (e *engine) touchQueue(now Time, ni int, n *nodeState) {
	if now >= e.wStart && now < e.wEnd && e.touchW <= n.lastW {
		return // now is in the current window, which the node has seen
	}
	e.carryQueue(now, ni, n)
}

// carryQueue is touchQueue's work.
func (e *engine) carryQueue(now Time, ni int, n *nodeState) {
	e.carry(now, e.res.NodeMaxQueue, e.nNodes, -1, ni, &n.lastW, int32(n.q.len()))
}

// carry raises series[(x&mask)*stride+i], for the windows x after *last up to now's (the
// last window past the end of the run), to the queue length ql held through them, and makes
// now's window the last.
func (e *engine) carry(now Time, series []int32, stride, mask, i int, last *int, ql int32) {
	w := e.window(now)
	if w < 0 {
		w = e.res.Windows - 1
	}
	for x := *last + 1; x <= w; x++ {
		series[(x&mask)*stride+i] = max(series[(x&mask)*stride+i], ql)
	}
	*last = max(*last, w)
}

// setWindow makes the window containing t (t >= 0) the current one. Past the end of the
// run the current window is -1 and reaches to the end of time.
func (e *engine) setWindow(t Time) {
	prev := e.wIdx
	if t >= e.m.Duration {
		e.wIdx, e.wStart, e.wEnd = -1, e.m.Duration, Time(math.MaxInt64)
	} else {
		e.wIdx = int(t / e.m.Window)
		e.wStart = Time(e.wIdx) * e.m.Window
		e.wEnd = min(e.wStart+e.m.Window, e.m.Duration)
	}
	e.touchW = e.wIdx
	if e.wIdx < 0 {
		e.touchW = e.res.Windows - 1
	}
	if e.perWindow && prev >= 0 && (e.wIdx < 0 || e.wIdx > prev) {
		e.windowEnd(t, prev)
	}
	if e.wIdx-histWindowLag > e.histOpen {
		e.closeWindows(e.wIdx - histWindowLag)
	}
	if e.sink != nil {
		end := e.wIdx
		if end < 0 {
			end = e.res.Windows
		}
		e.closeShardWindows(end, true)
	}
}

// touchShardQueue is touchQueue for one shard's own waiting subrequests.
func (e *engine) touchShardQueue(now Time, sh int) {
	if now >= e.wStart && now < e.wEnd && e.touchW <= e.shardW[sh] {
		return
	}
	e.carryShardQueue(now, sh)
}

// carryShardQueue is touchShardQueue's work.
func (e *engine) carryShardQueue(now Time, sh int) {
	e.carry(now, e.res.ShardMaxQueue, e.nShards, e.wMask, sh, &e.shardW[sh], e.shardQ[sh])
}

// window returns the window index of t, or -1 past the end of the run. Times at or after
// the current event's are looked up without a division.
func (e *engine) window(t Time) int {
	if t >= e.wStart && t < e.wEnd {
		return e.wIdx
	}
	if t >= e.m.Duration || t < 0 {
		return -1
	}
	return int(t / e.m.Window)
}

// start puts subrequest si, which has waited for wait, on a core of node n at time now.
// Its time at the node, wait plus its service, is known from here and counted now.
func (e *engine) start(now Time, si int32, n *nodeState, wait Time) {
	n.busy++
	sub := &e.subs.items[si]
	end := now + sub.service
	e.h.push(end, si)
	if sub.req != followerReq {
		if now-wait >= e.warmup { // arrived after the warmup
			e.countShardLatency(sub.shard, wait+sub.service)
		}
	} else if sub.attempt == backfillMark && e.mig != nil {
		e.backfillServed(now, sub.service) // its CPU, as it is served (migrate.go)
	}
	if now >= e.m.Duration {
		return
	}
	// The shard's totals (Ops, Busy) are the sums of these series, taken in wrapUp.
	w := e.window(now)
	e.res.ShardOps[(w&e.wMask)*e.nShards+int(sub.shard)]++
	if sub.write {
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
		if e.split != nil {
			e.split.rows[sub.shard]++
		}
		if g := e.mig; g != nil && (g.phase == migDual && sub.shard >= g.off || g.phase == migVerify && sub.shard < g.off) {
			g.res.DualCPU += sub.service // a dual write's second copy (migrate.go)
		}
	}
	// Attribute the busy interval [now, end) to the windows it overlaps, within the run.
	if end <= e.wEnd && w == e.wIdx {
		e.res.ShardBusy[(w&e.wMask)*e.nShards+int(sub.shard)] += sub.service
		if e.trackNode {
			e.res.NodeBusy[w*e.nNodes+int(sub.node)] += sub.service
		}
		return
	}
	t := now
	stop := min(end, e.m.Duration)
	for t < stop {
		w := int(t / e.m.Window)
		wEnd := min(Time(w+1)*e.m.Window, stop)
		if e.sink != nil && w-e.closedW > e.ringN {
			e.growRing(w)
		}
		e.res.ShardBusy[(w&e.wMask)*e.nShards+int(sub.shard)] += wEnd - t
		if e.trackNode {
			e.res.NodeBusy[w*e.nNodes+int(sub.node)] += wEnd - t
		}
		t = wEnd
	}
}

// done handles the end of subrequest si's service at time now.
func (e *engine) done(now Time, si int32) {
	ni, req := int(e.subs.items[si].node), e.subs.items[si].req
	n := &e.nodes[ni]
	n.busy--
	e.startQueued(now, ni, n) // takes no subrequest slot, so si is still this one
	if req <= soloReq {
		e.finishSolo(now, si, req)
		e.subs.put(si)
		return
	}
	sub := e.subs.items[si]
	e.subs.put(si)
	if req == followerReq {
		// A follower's apply, or a backfill batch's read or write, or an outbox's copy
		// (migrate.go).
		switch sub.attempt {
		case backfillMark:
			e.backfillEnd(now, sub.shard, sub.parts)
		case outboxMark:
			e.outboxApplied(now)
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
	if sub.write && e.m.Replicas > 0 {
		e.replicate(now, &sub)
	}
	e.subEnd(sub.req, int32(sub.attempt), now, failNone)
}

// startQueued starts waiting subrequests on node n's free cores.
func (e *engine) startQueued(now Time, ni int, n *nodeState) {
	for n.busy < n.cores && n.q.len() > 0 {
		e.touchQueue(now, ni, n)
		next := n.q.pop()
		e.queued--
		nsh := int(e.subs.items[next].shard)
		e.touchShardQueue(now, nsh)
		e.shardQ[nsh]--
		e.start(now, next, n, now-e.arrived[next])
	}
}

// replicate sends a write the leader has applied to the shard's followers, which apply it
// at the stream's apply cost; nobody waits for them.
func (e *engine) replicate(now Time, sub *subreq) {
	st := &e.streams[e.reqs.items[sub.req].stream]
	leader := int(e.shardNode[sub.shard])
	for k := 1; k <= e.m.Replicas; k++ {
		si := e.subs.take()
		e.subs.items[si] = subreq{req: followerReq, shard: sub.shard, node: int16((leader + k) % e.nNodes), parts: sub.parts,
			service: e.serviceTime(st, st.s.ApplyCost, sub.parts)}
		e.reach(now, si)
	}
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

// release returns request ri's slot to the pool once nothing refers to it any more.
func (e *engine) release(ri int32) {
	r := &e.reqs.items[ri]
	if r.finished && r.inflight == 0 {
		if int(ri) < len(e.gens) {
			e.gens[ri]++ // a timer set for this request must not act on the slot's next one
		}
		e.reqs.put(ri)
	}
}

// attemptEnd handles the end of request ri's current attempt: its last subrequest ended at
// r.done, and the client hears of it a network delay later.
func (e *engine) attemptEnd(ri int32) {
	r := &e.reqs.items[ri]
	t := r.done + e.m.Network
	if (r.fail == failRejected || r.fail == failThrottled || r.fail == failLock) && e.retry(ri, t) {
		return
	}
	e.finish(ri, t, r.fail)
}

// finishPlain is finish for a plain request whose last subrequest was served: the
// common case, kept short.
func (e *engine) finishPlain(ri int32, r *request) {
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
func (e *engine) recordSuccess(st *streamState, issue Time, counted bool, t Time) Time {
	out := st.out
	if e.mig != nil {
		e.mig.settle(issue, t)
	}
	lat := t - issue
	us := micros(lat)
	if w := e.window(t); w >= 0 {
		win := &out.Win[w]
		win.Completed++
		win.Max = max(win.Max, lat)
		e.countWindow(st, w, us)
	}
	if st.fine != nil {
		e.countFine(st, t, us)
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
	lat := e.recordSuccess(st, r.issue, r.counted, t)
	if r.counted && r.sampled {
		e.sample(st, ri, r, lat)
	}
}

// finish records the outcome of request ri, which reached its client at t.
func (e *engine) finish(ri int32, t Time, fail uint8) {
	r := &e.reqs.items[ri]
	r.finished = true
	st := &e.streams[r.stream]
	if r.lead || r.kind == reqRefresh {
		e.cacheFilled(ri, t, fail)
	}
	if r.kind == reqRefresh {
		return
	}
	if fail == failNone {
		e.recordRequest(ri, r, t)
	} else {
		if e.mig != nil {
			e.mig.settle(r.issue, t)
		}
		out := st.out
		if w := e.window(t); w >= 0 {
			win := &out.Win[w]
			win.Errors++
			switch fail {
			case failThrottled:
				win.Throttled++
			case failTimeout:
				win.TimedOut++
			case failLock:
				win.LockTimedOut++
			case failRejected:
				win.Rejected++
			case failLimited:
				win.Limited++
			}
		}
		if r.counted {
			switch fail {
			case failRejected:
				out.Rejected++
			case failThrottled:
				out.Throttled++
			case failTimeout:
				out.TimedOut++
			case failLimited:
				out.Limited++
			case failLock:
				out.LockTimedOut++
			}
		}
	}
	if r.sampled {
		e.unsample(st.det, ri, r)
	}
	if st.closed {
		e.think(st, t)
	}
}

// micros converts a latency to the histograms' unit, rounding up and clamping to their range.
func micros(t Time) int64 {
	us := int64((t + Microsecond - 1) / Microsecond)
	return min(max(us, 1), histMaxMicros)
}

// pool is a slice of slots with a free list: slots are reused, so once the pool has grown
// to the run's largest number in flight, taking one does not allocate.
type pool[T any] struct {
	items []T
	free  []int32
}

// take returns a free slot's index, growing the pool when none is free.
func (p *pool[T]) take() int32 {
	if n := len(p.free); n > 0 {
		i := p.free[n-1]
		p.free = p.free[:n-1]
		return i
	}
	var zero T
	p.items = append(p.items, zero)
	return int32(len(p.items) - 1)
}

// put returns slot i to the pool.
func (p *pool[T]) put(i int32) { p.free = append(p.free, i) }

// wrapUp derives the node totals from the shard series and gathers what the mitigations
// and detection recorded.
func (e *engine) wrapUp() {
	r := e.res
	last := e.res.Elapsed - 1 // a stopped run's backlog is not carried past the stop
	for ni := range e.nodes {
		e.touchQueue(last, ni, &e.nodes[ni])
	}
	for sh := range e.shardQ {
		e.touchShardQueue(last, sh)
	}
	if e.split != nil {
		e.split.trim()
	}
	nS := len(r.Shards)
	if e.sink != nil {
		// The shard totals and the node busy series were taken as the windows closed.
		e.closeShardWindows(r.Windows, false)
		r.ShardBusy, r.ShardOps, r.ShardMaxQueue = nil, nil, nil
		r.ShardCapacity, r.Streamed, r.Sink = e.shardCap, true, e.sink
	} else {
		for w := 0; w < r.Windows; w++ {
			for sh := range nS {
				r.Shards[sh].Ops += r.ShardOps[w*nS+sh]
				r.Shards[sh].Busy += r.ShardBusy[w*nS+sh]
			}
		}
	}
	if !e.trackNode && e.sink == nil {
		for w := 0; w < r.Windows; w++ {
			for s := 0; s < nS; s++ {
				r.NodeBusy[w*e.nNodes+r.Shards[s].Node] += r.ShardBusy[w*nS+s]
			}
		}
	}
	for w := 0; w < r.Windows; w++ {
		for n := range r.Nodes {
			r.Nodes[n].Busy += r.NodeBusy[w*e.nNodes+n]
		}
	}
	e.capacity()
	for n := range r.Nodes {
		mq := int32(0)
		for w := 0; w < r.Windows; w++ {
			mq = max(mq, r.NodeMaxQueue[w*e.nNodes+n])
		}
		r.Nodes[n].MaxQueue = int(mq)
		r.Nodes[n].Cores = e.nodes[n].cores
	}
	for i := range e.streams {
		if d := e.streams[i].det; d != nil {
			d.report(e.streams[i].out)
		}
		if l := e.streams[i].locks; l != nil {
			l.report(e.streams[i].out)
		}
	}
	e.closeWindows(r.Windows)
	e.endDetail()
	for i := range e.streams {
		st := &e.streams[i]
		st.out.Latency = runLayout.histogram(st.latCounts)
		st.latCounts = nil
	}
	e.histFree = nil
	compactSubLatency(r.Shards)
	e.shardLat = nil
}

// fifo is a growable ring buffer of subrequest slots. Its length is a power of two, so an
// index wraps with a mask rather than a division; it grows by doubling and never shrinks,
// so in steady state it does not allocate.
type fifo struct {
	buf        []int32
	head, size int
}

func (q *fifo) len() int { return q.size }

func (q *fifo) push(v int32) {
	if q.size == len(q.buf) {
		nb := make([]int32, max(16, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)&(len(q.buf)-1)] = v
	q.size++
}

func (q *fifo) peek() int32 { return q.buf[q.head] }

func (q *fifo) pop() int32 {
	v := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.size--
	return v
}
