package sim

import (
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/shardsim/shardsim/internal/waitlist"
	"github.com/shardsim/shardsim/keyspace"
)

// streamTable is the streams' state, by stream, and the stream whose pending arrival
// comes first.
type streamTable struct {
	streams    []streamState
	nextStream int // stream with the earliest pending arrival, or -1
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
	needKey bool // every request needs its key identity (a RequestTaker)
	index   int
	limit   *limiter
	held    waitlist.FIFO          // requests the rate limit holds back, in the order they leave
	relAt   Time                   // when the pending release event of held fires
	point   *keyspace.PointPlanner // the planner, when it plans point requests
	det     *streamDetect          // nil when the stream is not observed
	// plain: the stream's requests are sent once, as they are planned (see sendPlain).
	plain bool
	// Latency counts in the histograms' layouts (see hist.go): the run's, and the open
	// windows' by window (nil for a closed window or one without a success yet).
	latCounts []int64
	winCounts [][]int64
	// closed: its requests come from Clients closed-loop clients, who think for a draw of
	// think between them.
	closed bool
	think  delaySampler
	// Kept last, so that the fields every request reads keep their places in the struct.
	fine *fineState // nil without a detail range
	tq   timerQueue // the client's pending timeouts, in deadline order (timers.go)
	// gates: the mechanisms that may hold the stream's requests before they are sent
	// (mechanism.go); nil: none.
	gates []RequestGate
	taker RequestTaker // takes the stream's requests as they are issued (Core.TakeStream); nil: none
	// mayLimit: a Setting may set the stream's client limit during the run (Core.MayLimit):
	// 1, a limit; 2, a queueing one.
	mayLimit uint8
}

// streamSeed derives a stream's random stream id from its name, so adding or reordering
// streams does not change the numbers another stream draws.
func streamSeed(name string, purpose uint64) uint64 {
	f := fnv.New64a()
	f.Write([]byte(name))
	return f.Sum64() ^ (purpose * 0x9e3779b97f4a7c15)
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
func (t *streamTable) pickArrival() {
	t.nextStream = -1
	if len(t.streams) == 1 {
		if t.streams[0].at != never {
			t.nextStream = 0
		}
		return
	}
	var best *streamState
	for i := range t.streams {
		st := &t.streams[i]
		if st.at == never {
			continue
		}
		if best == nil || st.at < best.at || (st.at == best.at && st.seq < best.seq) {
			best, t.nextStream = st, i
		}
	}
}

// initStream sets up stream i: its random streams, its scratch space, its result, the
// mechanisms it takes part in, and its first arrival (or its closed-loop clients' first
// requests).
func (e *engine) initStream(i int) {
	m := e.m
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
	st.point, _ = s.Planner.(*keyspace.PointPlanner)
	st.choosePath(m)
	st.fields = make([]uint64, len(s.Fields))
	st.visits = make([]keyspace.Visit, 0, e.nShards)
	if s.Service.Kind == Lognormal {
		st.mu, st.sigma = lognormal(float64(s.Cost), s.Service.CV)
	}
	st.out = e.initStreamResult(s, i)
	st.latCounts = make([]int64, runLayout.countsN)
	st.winCounts = make([][]int64, e.res.Windows)
	st.det = newStreamDetect(m, s)
	st.at = never
	if s.Clients > 0 {
		e.startClients(st)
		return
	}
	if t := Time(s.Arrivals.Next(st.arr, 0)); t < m.Duration {
		e.schedule(st, t)
		st.after = e.arrivalAfter(st, t)
	}
}

// initStreamResult fills the result of stream i, s, with what is known before the run.
func (r *recorder) initStreamResult(s *Stream, i int) *StreamResult {
	out := &r.res.Streams[i]
	out.Name, out.Op, out.RowsModeled = s.Name, s.Op, s.RowsModeled
	out.Win = make([]WindowLatency, r.res.Windows)
	if s.Op == Write {
		out.ShardRows = make([]int64, len(r.res.Shards))
	}
	return out
}

// streamTotals puts each stream's detection figures and latency histograms (run,
// windows, fine windows) into its result.
func (r *recorder) streamTotals(streams []streamState) {
	for i := range streams {
		if d := streams[i].det; d != nil {
			d.report(streams[i].out)
		}
	}
	r.closeWindows(streams, r.res.Windows)
	r.endDetail(streams)
	for i := range streams {
		st := &streams[i]
		st.out.Latency = runLayout.histogram(st.latCounts)
		st.latCounts = nil
	}
	r.histFree = nil
}

// choosePath decides which of the request path's ways stream st's requests take: whether
// they need their key identity (needKey: the cache), keep their visits for a later send
// (keep: retries, a queueing rate limit, a cache refresh), or are plain (sent once, as
// planned: no mechanism of the client's or a copy's touches them, see sendPlain).
func (st *streamState) choosePath(m *Model) {
	s := st.s
	st.keep = s.Client.Retries > 0 || (s.Client.Limit != nil && s.Client.Limit.Queue) || st.mayLimit == 2
	client := s.Client.Limit != nil || s.Client.Timeout > 0 || st.mayLimit > 0
	st.plain = !st.keep && s.Clients == 0 && !client
}

// lognormal returns the parameters of a lognormal with the given mean and coefficient of
// variation cv: sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2/2.
func lognormal(mean, cv float64) (mu, sigma float64) {
	s2 := math.Log1p(cv * cv)
	return math.Log(mean) - s2/2, math.Sqrt(s2)
}

// delaySampler draws a Delay.
type delaySampler struct {
	kind      ServiceKind
	mean      float64
	mu, sigma float64 // lognormal: ln of the median, and the shape
}

func newDelaySampler(d Delay) delaySampler {
	ds := delaySampler{kind: d.Kind, mean: float64(d.Mean)}
	if d.Mean <= 0 {
		ds.kind = Constant // no delay at all
	}
	if d.Kind == Lognormal && d.Mean > 0 {
		ds.mu, ds.sigma = lognormal(ds.mean, d.CV)
	}
	return ds
}

func (d *delaySampler) draw(r *rand.Rand) Time {
	switch d.kind {
	case Constant:
		return Time(d.mean)
	case Lognormal:
		// A draw far in the tail of a wide lognormal would overflow the clock: capped.
		return Time(min(math.Exp(d.mu+d.sigma*r.NormFloat64()), maxDelayDraw) + 0.5)
	}
	return Time(r.ExpFloat64()*d.mean + 0.5)
}

// maxDelayDraw caps a draw at about 13 days, far beyond any mean the scenario allows
// (a lock's is at most an hour, a think time's a day).
const maxDelayDraw = float64(1 << 50)
