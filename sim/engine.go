package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/shardsim/shardsim/keyspace"
)

// Run simulates m and returns what it recorded. Run is deterministic: the same model and
// seed give the same Result on any machine. It panics on a model that breaks the invariants
// the scenario loader guarantees (no nodes, a shard on a missing node, a zero window).
func Run(m *Model) *Result {
	e := newEngine(m)
	e.run()
	return e.res
}

type streamState struct {
	s    *Stream
	arr  *rand.Rand // arrivals
	fld  *rand.Rand // field values, ages and salts
	svc  *rand.Rand // service times
	next Time       // issue time of the pending arrival
	// The pending arrival reaches its nodes at (at, seq); at is Never when the stream is done.
	at     Time
	seq    uint64
	fields []uint64
	visits []keyspace.Visit
	// lognormal parameters of one partition's service time
	mu, sigma float64
	out       *StreamResult
}

type request struct {
	issue   Time
	done    Time // latest subrequest completion so far
	stream  int32
	pending int32
	failed  bool
	counted bool // issued after warmup
}

type subreq struct {
	req     int32
	shard   int32
	service Time
	write   bool // a write: the shard gains a row
}

type nodeState struct {
	cores, busy int
	limit       int
	q           fifo
	lastW       int // last window whose max queue is up to date
}

type engine struct {
	m          *Model
	res        *Result
	h          eventHeap
	streams    []streamState
	nodes      []nodeState
	shardQ     []int32 // subrequests of each shard waiting in its node's queue
	shardW     []int   // last window whose shard max queue is up to date
	reqs       pool[request]
	subs       pool[subreq]
	nShards    int
	nNodes     int
	nextStream int // stream with the earliest pending arrival, or -1
	now        Time
	queued     int // subrequests waiting in all queues
	maxQueued  int
	stopped    bool
	// The window of the latest event, cached so the hot path does not divide.
	wIdx         int
	wStart, wEnd Time
}

// streamSeed derives a stream's random stream id from its name, so adding or reordering
// streams does not change the numbers another stream draws.
func streamSeed(name string, purpose uint64) uint64 {
	f := fnv.New64a()
	f.Write([]byte(name))
	return f.Sum64() ^ (purpose * 0x9e3779b97f4a7c15)
}

func newEngine(m *Model) *engine {
	if len(m.Nodes) == 0 || m.Window <= 0 || m.Duration <= 0 {
		panic(fmt.Sprintf("sim: invalid model: %d nodes, window %v, duration %v", len(m.Nodes), m.Window, m.Duration))
	}
	nw := m.Windows()
	e := &engine{m: m, nShards: len(m.ShardNode), nNodes: len(m.Nodes), maxQueued: m.MaxQueued}
	if e.maxQueued <= 0 {
		e.maxQueued = DefaultMaxQueued
	}
	r := &Result{
		Duration:      m.Duration,
		Window:        m.Window,
		Windows:       nw,
		Elapsed:       m.Duration,
		Streams:       make([]StreamResult, len(m.Streams)),
		Shards:        make([]ShardResult, e.nShards),
		Nodes:         make([]NodeResult, e.nNodes),
		ShardBusy:     make([]Time, nw*e.nShards),
		ShardOps:      make([]int64, nw*e.nShards),
		ShardMaxQueue: make([]int32, nw*e.nShards),
		NodeMaxQueue:  make([]int32, nw*e.nNodes),
	}
	e.res = r
	e.nodes = make([]nodeState, e.nNodes)
	for i, n := range m.Nodes {
		if n.Cores < 1 {
			panic(fmt.Sprintf("sim: node %d has %d cores", i, n.Cores))
		}
		e.nodes[i] = nodeState{cores: n.Cores, limit: n.QueueLimit}
		r.Nodes[i].Cores = n.Cores
	}
	for s, n := range m.ShardNode {
		if n < 0 || n >= e.nNodes {
			panic(fmt.Sprintf("sim: shard %d on missing node %d", s, n))
		}
		r.Shards[s].Node = n
	}
	e.shardQ = make([]int32, e.nShards)
	e.shardW = make([]int, e.nShards)
	e.streams = make([]streamState, len(m.Streams))
	for i := range m.Streams {
		s := &m.Streams[i]
		st := &e.streams[i]
		st.s = s
		st.arr = rand.New(rand.NewPCG(m.Seed, streamSeed(s.Name, 1)))
		st.fld = rand.New(rand.NewPCG(m.Seed, streamSeed(s.Name, 2)))
		st.svc = rand.New(rand.NewPCG(m.Seed, streamSeed(s.Name, 3)))
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
		out.Name, out.Op = s.Name, s.Op
		out.Latency = hdrhistogram.New(1, histMaxMicros, histDigits)
		out.Win = make([]WindowLatency, nw)
		st.out = out
		st.at = never
		if t := Time(s.Arrivals.Next(st.arr, 0)); t < m.Duration {
			e.schedule(st, t)
		}
	}
	e.pickArrival()
	return e
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

// pickArrival finds the stream whose pending arrival comes first. Each stream has exactly
// one pending arrival, so arrivals stay out of the heap: with a handful of streams a scan
// is cheaper than a push and a pop per request.
func (e *engine) pickArrival() {
	e.nextStream = -1
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
	e.finish()
}

// halt stops the run at now: nothing further is simulated, and requests still in flight
// are neither completed nor counted as errors.
func (e *engine) halt(now Time) {
	e.stopped = true
	e.res.Elapsed = max(min(now, e.m.Duration), 1)
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
	ev := e.h.pop()
	if ev.at >= e.wEnd {
		e.setWindow(ev.at)
	}
	e.now = ev.at
	e.done(ev.at, ev.idx)
	return true
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
	st.visits = s.Planner.Plan(st.visits[:0], st.fld, st.fields, rowTime)

	ri := e.reqs.take()
	counted := issue >= e.m.Warmup
	e.reqs.items[ri] = request{issue: issue, done: now, stream: int32(i), pending: int32(len(st.visits)), counted: counted}
	if counted {
		out := st.out
		out.Offered++
		out.Subrequests += int64(len(st.visits))
		out.MaxFanout = max(out.MaxFanout, len(st.visits))
		for _, v := range st.visits {
			out.Partitions += int64(v.Partitions)
		}
	}
	// Schedule the next arrival before serving, so the heap order does not depend on how
	// many subrequests this request has.
	if next := Time(s.Arrivals.Next(st.arr, int64(issue))); next < e.m.Duration {
		e.schedule(st, next)
	} else {
		st.at = never
	}
	e.pickArrival()
	if len(st.visits) == 0 {
		e.complete(ri, now)
		return
	}
	for _, v := range st.visits {
		si := e.subs.take()
		e.subs.items[si] = subreq{req: ri, shard: v.Shard, service: e.serviceTime(st, v.Partitions), write: s.Op == Write}
		e.reach(now, si)
	}
}

// serviceTime draws the CPU time of a subrequest that works on k partitions: the sum of k
// draws of one partition's service time.
func (e *engine) serviceTime(st *streamState, k int32) Time {
	s := st.s
	c := float64(s.Cost)
	switch s.Service.Kind {
	case Constant:
		return s.Cost * Time(k)
	case Lognormal:
		var t float64
		for range k {
			t += math.Exp(st.mu + st.sigma*st.svc.NormFloat64())
		}
		return Time(t + 0.5)
	default:
		var t float64
		for range k {
			t += st.svc.ExpFloat64()
		}
		return Time(t*c + 0.5)
	}
}

// reach handles subrequest si arriving at its node at time now.
func (e *engine) reach(now Time, si int32) {
	sub := &e.subs.items[si]
	ni := e.m.ShardNode[sub.shard]
	n := &e.nodes[ni]
	if n.busy < n.cores {
		e.start(now, si, n)
		return
	}
	if n.limit > 0 && n.q.len() >= n.limit {
		r := &e.reqs.items[sub.req]
		r.failed = true
		e.subs.put(si)
		e.subDone(sub.req, now)
		return
	}
	e.touchQueue(now, ni, n)
	e.touchShardQueue(now, int(sub.shard))
	n.q.push(si)
	e.shardQ[sub.shard]++
	if e.queued++; e.queued > e.maxQueued && !e.stopped {
		// The backlog has passed the bound: the offered load exceeds what the nodes serve.
		e.res.Saturated, e.res.SaturatedAt, e.res.Backlog = true, now, e.queued
		e.halt(now)
	}
	w := e.window(now)
	if w >= 0 {
		idx := w*e.nNodes + ni
		e.res.NodeMaxQueue[idx] = max(e.res.NodeMaxQueue[idx], int32(n.q.len()))
		sidx := w*e.nShards + int(sub.shard)
		e.res.ShardMaxQueue[sidx] = max(e.res.ShardMaxQueue[sidx], e.shardQ[sub.shard])
	}
}

// touchQueue carries a node's queue length into the windows since the last change, so a
// window in which the queue did not change still reports the backlog it held.
func (e *engine) touchQueue(now Time, ni int, n *nodeState) {
	w := e.window(now)
	if w < 0 {
		w = e.res.Windows - 1
	}
	if w <= n.lastW {
		return
	}
	ql := int32(n.q.len())
	for x := n.lastW + 1; x <= w; x++ {
		idx := x*e.nNodes + ni
		e.res.NodeMaxQueue[idx] = max(e.res.NodeMaxQueue[idx], ql)
	}
	n.lastW = w
}

// setWindow makes the window containing t (t >= 0) the current one. Past the end of the
// run the current window is -1 and reaches to the end of time.
func (e *engine) setWindow(t Time) {
	if t >= e.m.Duration {
		e.wIdx, e.wStart, e.wEnd = -1, e.m.Duration, Time(math.MaxInt64)
		return
	}
	e.wIdx = int(t / e.m.Window)
	e.wStart = Time(e.wIdx) * e.m.Window
	e.wEnd = min(e.wStart+e.m.Window, e.m.Duration)
}

// touchShardQueue is touchQueue for one shard's own waiting subrequests.
func (e *engine) touchShardQueue(now Time, sh int) {
	w := e.window(now)
	if w < 0 {
		w = e.res.Windows - 1
	}
	if w <= e.shardW[sh] {
		return
	}
	ql := e.shardQ[sh]
	for x := e.shardW[sh] + 1; x <= w; x++ {
		idx := x*e.nShards + sh
		e.res.ShardMaxQueue[idx] = max(e.res.ShardMaxQueue[idx], ql)
	}
	e.shardW[sh] = w
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

// start puts subrequest si on a core of node n at time now.
func (e *engine) start(now Time, si int32, n *nodeState) {
	n.busy++
	sub := &e.subs.items[si]
	end := now + sub.service
	e.h.push(end, si)
	if now >= e.m.Duration {
		return
	}
	sh := &e.res.Shards[sub.shard]
	sh.Ops++
	w := e.window(now)
	e.res.ShardOps[w*e.nShards+int(sub.shard)]++
	if sub.write {
		sh.Rows++
	}
	// Attribute the busy interval [now, end) to the windows it overlaps, within the run.
	if end <= e.wEnd && w == e.wIdx {
		e.res.ShardBusy[w*e.nShards+int(sub.shard)] += sub.service
		sh.Busy += sub.service
		return
	}
	t := now
	stop := min(end, e.m.Duration)
	for t < stop {
		w := int(t / e.m.Window)
		wEnd := min(Time(w+1)*e.m.Window, stop)
		e.res.ShardBusy[w*e.nShards+int(sub.shard)] += wEnd - t
		sh.Busy += wEnd - t
		t = wEnd
	}
}

// done handles the end of subrequest si's service at time now.
func (e *engine) done(now Time, si int32) {
	sub := e.subs.items[si]
	ni := e.m.ShardNode[sub.shard]
	n := &e.nodes[ni]
	n.busy--
	if n.q.len() > 0 {
		e.touchQueue(now, ni, n)
		next := n.q.pop()
		e.queued--
		nsh := int(e.subs.items[next].shard)
		e.touchShardQueue(now, nsh)
		e.shardQ[nsh]--
		e.start(now, next, n)
	}
	e.subs.put(si)
	e.subDone(sub.req, now)
}

// subDone records that one subrequest of request ri ended (served or rejected) at now.
func (e *engine) subDone(ri int32, now Time) {
	r := &e.reqs.items[ri]
	r.done = max(r.done, now)
	r.pending--
	if r.pending == 0 {
		e.complete(ri, r.done)
	}
}

// complete records request ri, whose last subrequest ended at t, and frees its slot.
func (e *engine) complete(ri int32, t Time) {
	r := &e.reqs.items[ri]
	st := &e.streams[r.stream]
	out := st.out
	arrival := t + e.m.Network // the response reaches the client
	lat := arrival - r.issue
	if w := e.window(arrival); w >= 0 {
		win := &out.Win[w]
		if r.failed {
			win.Errors++
		} else {
			win.Completed++
			win.Max = max(win.Max, lat)
			if win.Hist == nil {
				win.Hist = hdrhistogram.New(1, histMaxMicros, windowHistDigits)
			}
			win.Hist.RecordValue(micros(lat))
		}
	}
	if r.counted {
		if r.failed {
			out.Rejected++
		} else {
			out.Completed++
			out.Latency.RecordValue(micros(lat))
			out.LatencySum += float64(lat)
			out.LatencyMax = max(out.LatencyMax, lat)
		}
	}
	e.reqs.put(ri)
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

// finish derives the node totals from the shard series.
func (e *engine) finish() {
	r := e.res
	last := e.res.Elapsed - 1 // a stopped run's backlog is not carried past the stop
	for ni := range e.nodes {
		e.touchQueue(last, ni, &e.nodes[ni])
	}
	for sh := range e.shardQ {
		e.touchShardQueue(last, sh)
	}
	for s := range r.Shards {
		r.Nodes[r.Shards[s].Node].Busy += r.Shards[s].Busy
	}
	for n := range r.Nodes {
		mq := int32(0)
		for w := 0; w < r.Windows; w++ {
			mq = max(mq, r.NodeMaxQueue[w*e.nNodes+n])
		}
		r.Nodes[n].MaxQueue = int(mq)
	}
}

// fifo is a growable ring buffer of subrequest slots. It grows by doubling and never
// shrinks, so in steady state it does not allocate.
type fifo struct {
	buf        []int32
	head, size int
}

func (q *fifo) len() int { return q.size }

func (q *fifo) push(v int32) {
	if q.size == len(q.buf) {
		nb := make([]int32, max(16, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = v
	q.size++
}

func (q *fifo) pop() int32 {
	v := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return v
}
