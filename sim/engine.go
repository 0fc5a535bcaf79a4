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
	s      *Stream
	arr    *rand.Rand // arrivals
	fld    *rand.Rand // field values, ages and salts
	svc    *rand.Rand // service times
	next   Time       // issue time of the pending arrival
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
}

type nodeState struct {
	cores, busy int
	limit       int
	q           fifo
	lastW       int // last window whose max queue is up to date
}

type engine struct {
	m       *Model
	res     *Result
	h       eventHeap
	streams []streamState
	nodes   []nodeState
	shardQ  []int32 // subrequests of each shard waiting in its node's queue
	reqs    []request
	freeReq []int32
	subs    []subreq
	freeSub []int32
	nShards int
	nNodes  int
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
	e := &engine{m: m, nShards: len(m.ShardNode), nNodes: len(m.Nodes)}
	r := &Result{
		Duration:      m.Duration,
		Window:        m.Window,
		Windows:       nw,
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
		if t := Time(s.Arrivals.Next(st.arr, 0)); t < m.Duration {
			st.next = t
			e.h.push(t+m.Network, evArrive, int32(i))
		}
	}
	return e
}

func (e *engine) run() {
	for e.step() {
	}
	e.finish()
}

// step handles the earliest event; it reports false when none is left.
func (e *engine) step() bool {
	if e.h.len() == 0 {
		return false
	}
	ev := e.h.pop()
	switch ev.kind {
	case evArrive:
		e.arrive(ev.at, int(ev.idx))
	case evDone:
		e.done(ev.at, ev.idx)
	}
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

	ri := e.allocReq()
	counted := issue >= e.m.Warmup
	e.reqs[ri] = request{issue: issue, done: now, stream: int32(i), pending: int32(len(st.visits)), counted: counted}
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
		st.next = next
		e.h.push(next+e.m.Network, evArrive, int32(i))
	}
	if len(st.visits) == 0 {
		e.complete(ri, now)
		return
	}
	for _, v := range st.visits {
		si := e.allocSub()
		e.subs[si] = subreq{req: ri, shard: v.Shard, service: e.serviceTime(st, v.Partitions)}
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
	sub := &e.subs[si]
	ni := e.m.ShardNode[sub.shard]
	n := &e.nodes[ni]
	if n.busy < n.cores {
		e.start(now, si, n)
		return
	}
	if n.limit > 0 && n.q.len() >= n.limit {
		r := &e.reqs[sub.req]
		r.failed = true
		e.freeSub = append(e.freeSub, si)
		e.subDone(sub.req, now)
		return
	}
	e.touchQueue(now, ni, n)
	n.q.push(si)
	e.shardQ[sub.shard]++
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

// window returns the window index of t, or -1 past the end of the run.
func (e *engine) window(t Time) int {
	if t >= e.m.Duration || t < 0 {
		return -1
	}
	return int(t / e.m.Window)
}

// start puts subrequest si on a core of node n at time now.
func (e *engine) start(now Time, si int32, n *nodeState) {
	n.busy++
	sub := &e.subs[si]
	end := now + sub.service
	e.h.push(end, evDone, si)
	sh := &e.res.Shards[sub.shard]
	if now < e.m.Duration {
		sh.Ops++
		w := int(now / e.m.Window)
		e.res.ShardOps[w*e.nShards+int(sub.shard)]++
		if e.m.Streams[e.reqs[sub.req].stream].Op == Write {
			sh.Rows++
		}
	}
	// Attribute the busy interval [now, end) to the windows it overlaps, within the run.
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
	sub := e.subs[si]
	ni := e.m.ShardNode[sub.shard]
	n := &e.nodes[ni]
	n.busy--
	if n.q.len() > 0 {
		e.touchQueue(now, ni, n)
		next := n.q.pop()
		e.shardQ[e.subs[next].shard]--
		e.start(now, next, n)
	}
	e.freeSub = append(e.freeSub, si)
	e.subDone(sub.req, now)
}

// subDone records that one subrequest of request ri ended (served or rejected) at now.
func (e *engine) subDone(ri int32, now Time) {
	r := &e.reqs[ri]
	r.done = max(r.done, now)
	r.pending--
	if r.pending == 0 {
		e.complete(ri, r.done)
	}
}

// complete records request ri, whose last subrequest ended at t, and frees its slot.
func (e *engine) complete(ri int32, t Time) {
	r := &e.reqs[ri]
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
	e.freeReq = append(e.freeReq, ri)
}

// micros converts a latency to the histograms' unit, rounding up and clamping to their range.
func micros(t Time) int64 {
	us := int64((t + Microsecond - 1) / Microsecond)
	return min(max(us, 1), histMaxMicros)
}

func (e *engine) allocReq() int32 {
	if n := len(e.freeReq); n > 0 {
		ri := e.freeReq[n-1]
		e.freeReq = e.freeReq[:n-1]
		return ri
	}
	e.reqs = append(e.reqs, request{})
	return int32(len(e.reqs) - 1)
}

func (e *engine) allocSub() int32 {
	if n := len(e.freeSub); n > 0 {
		si := e.freeSub[n-1]
		e.freeSub = e.freeSub[:n-1]
		return si
	}
	e.subs = append(e.subs, subreq{})
	return int32(len(e.subs) - 1)
}

// finish derives the node totals from the shard series.
func (e *engine) finish() {
	r := e.res
	for ni := range e.nodes {
		e.touchQueue(e.m.Duration-1, ni, &e.nodes[ni])
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
