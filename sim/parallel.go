package sim

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/shardsim/shardsim/keyspace"
)

// One run on several cores (docs/performance.md, "One run on many cores").
//
// The nodes are dealt to W workers, node n to worker n mod W, and each worker is a whole
// engine over a model of its own (built afresh, so its generators start where the
// others' do). Every worker draws every arrival of every stream, in the same order as a
// run on one engine: the arrival times, the field values, the routes and the service
// times (drawn when a request is issued, on the stream's side) are the same draws from
// the same generators, and the detection sample is drawn at issue from the engine's own
// generator, which nothing else draws from in such a run. A worker serves only the
// subrequests that reach its own nodes, and passes over the rest after drawing their
// service times.
//
// For streams whose requests go once to their nodes and are then only waited for (the
// plain streams of choosePath: open-loop, no client timeout, retry or limit, no cache,
// copy or lock), nothing a node does reaches another node: the workers run side by side
// with no synchronization at all, and every coupling is in the statistics, which the
// merge puts together when they are done. That is exact, to the byte, for every W:
//
//   - a worker handles all the arrivals and its own nodes' events in the order one engine
//     would (the sequence numbers of the events it pushes are taken in that order), so each
//     node sees the same events in the same order, ties included;
//   - the figures of a node or a shard are its worker's; a stream's figures at issue are
//     the same in every worker, and those at completion are counts, maxima, histograms and
//     sums of integer nanoseconds, which do not depend on the order they are added in (the
//     float sum of latencies is exact below 2^53 ns, which the merge checks);
//   - a request with visits on several workers' nodes is joined by the merge: its end is
//     the latest of its parts', as on one engine;
//   - detection's per-key latencies depend on the order of completions, so the workers log
//     their sampled completions and the merge adds them in time order (a tie between two
//     workers at the same nanosecond cannot be ordered: the run is then done again on
//     one engine);
//   - the backlog bound of a saturated run is global: a worker that passes its share of it
//     ends the attempt, and the run is done again on one engine, which finds where it
//     saturated.
//
// Runs that use a mechanism with feedback between nodes or between the nodes and the
// clients (closed-loop clients, timeouts, retries and rate limits, caches, replicas, row
// locks, partition limits, shard splits, migrations, rebalances, actions) or that stream
// their shard series run on one engine; Result.OneCore says why.

// partition is one worker's share of a parallel run: which nodes it serves, and what it
// hands to the merge.
type partition struct {
	worker int
	owns   []bool  // by node: this worker serves it
	owner  []int   // by node: the worker that serves it
	ids    []reqID // by request slot: the request's identity when its visits are split (n > 0)
	joins  []joinPart
	logged sampleLogs  // in the order of completion, so of t
	joined []sampleLog // the merge's: sampled successes of split requests
	seq    int64       // orders this worker's logs among themselves
}

// reqID names a request the same way in every worker: its stream, the window it was
// issued in, and its number among that window's requests of the stream.
type reqID struct {
	stream, window int32
	n              int64
}

func (a reqID) compare(b reqID) int {
	return cmp.Or(cmp.Compare(a.stream, b.stream), cmp.Compare(a.window, b.window), cmp.Compare(a.n, b.n))
}

// joinPart is what one worker knows of a request whose visits are split among workers:
// when its own subrequests ended (done, or -1 when it had none) and how.
type joinPart struct {
	id      reqID
	issue   Time
	done    Time
	fail    uint8
	counted bool
	sampled bool
	seq     int64 // the worker's log order when its part ended
	key     uint64
	shard   int32
	vals    [keyspace.MaxParts]uint64
}

// sampleLog is a sampled request's success, for detection's per-key latencies.
type sampleLog struct {
	t      Time  // when its answer reached the client
	worker int   // the worker that completed it
	seq    int64 // its order among that worker's logs
	stream int32
	key    uint64
	lat    Time
	shard  int32
	vals   [keyspace.MaxParts]uint64
}

// sendPlain marks request ri, being sent by sendPlain, as split when its visits are on
// more than one worker's nodes, and returns how many are on this worker's.
func (p *partition) sendPlain(e *engine, ri int32, st *streamState) int32 {
	var n int32
	first, split := p.owner[e.shardNode[st.visits[0].Shard]], false
	for _, v := range st.visits {
		o := p.owner[e.shardNode[v.Shard]]
		if o == p.worker {
			n++
		}
		split = split || o != first
	}
	for int(ri) >= len(p.ids) {
		p.ids = append(p.ids, reqID{})
	}
	if !split {
		p.ids[ri] = reqID{}
		return n
	}
	r := &e.reqs.items[ri]
	w := e.window(r.issue)
	p.ids[ri] = reqID{stream: int32(st.index), window: int32(w), n: st.out.Win[w].Offered}
	return n
}

// elsewhere handles request ri, sent by sendPlain, none of whose visits is on this
// worker's nodes: when another worker serves them all, the request is that worker's
// alone and ends here; when several serve them, it is joined (join).
func (p *partition) elsewhere(e *engine, ri int32, r *request) {
	if p.isSplit(ri) {
		r.done = -1
		p.join(e, ri, r)
	} else if r.sampled {
		e.unsample(e.streams[r.stream].det, ri, r)
	}
	e.reqs.put(ri)
}

// isSplit reports whether request ri's visits are split among workers.
func (p *partition) isSplit(ri int32) bool { return int(ri) < len(p.ids) && p.ids[ri].n > 0 }

// join hands the merge this worker's part of split request ri, whose subrequests here
// have all ended, and frees what the request kept for detection.
func (p *partition) join(e *engine, ri int32, r *request) {
	j := joinPart{id: p.ids[ri], issue: r.issue, done: r.done, fail: r.fail, counted: r.counted, sampled: r.sampled, seq: p.seq}
	p.seq++
	if r.sampled {
		st := &e.streams[r.stream]
		j.key, j.shard, j.vals = e.keys[ri], r.shard, st.det.pending.items[e.samples[ri]]
		e.unsample(st.det, ri, r)
	}
	p.joins = append(p.joins, j)
	p.ids[ri] = reqID{}
}

// logSample logs the success of sampled request ri of stream st, whose answer reached
// its client at t after lat.
func (p *partition) logSample(e *engine, st *streamState, ri int32, r *request, t, lat Time) {
	p.logged.add(sampleLog{t: t, worker: p.worker, seq: p.seq, stream: int32(st.index),
		key: e.keys[ri], lat: lat, shard: r.shard, vals: st.det.pending.items[e.samples[ri]]})
	p.seq++
}

// couplings are what keeps a run on one engine, model-wide and per stream, each with the
// reason OneCoreReason gives: feedback between the nodes, or between the nodes and the
// clients, that a split run would not see.
var (
	modelCouplings = []struct {
		on  func(m *Model) bool
		why string
	}{
		{func(m *Model) bool { return m.Sink != nil }, "its shard series are streamed"},
		{func(m *Model) bool { return settingCouples(m) != "" }, ""}, // the Setting's own words (Coupling)
		// A Setting that says nothing of itself: the core names no mechanism.
		{func(m *Model) bool { return len(m.Mechanisms) > 0 }, "a mechanism of Model.Mechanisms is not split yet"},
	}
	streamCouplings = []struct {
		on  func(s *Stream) bool
		why string
	}{
		{func(s *Stream) bool { return s.Clients > 0 }, "has closed-loop clients, who wait for their answers (zero lookahead)"},
		{func(s *Stream) bool { return s.Client.Timeout > 0 || s.Client.Retries > 0 || s.Client.Limit != nil },
			"has a client timeout, retries or a rate limit, which feed back with zero lookahead"},
	}
)

// OneCoreReason says why a run of m cannot be split among workers, or "" when it can: the
// first mechanism it uses that couples the nodes during the run.
func OneCoreReason(m *Model) string {
	for _, c := range modelCouplings {
		if !c.on(m) {
			continue
		}
		if c.why == "" {
			return settingCouples(m)
		}
		return c.why
	}
	for i := range m.Streams {
		for _, c := range streamCouplings {
			if c.on(&m.Streams[i]) {
				return fmt.Sprintf("stream %q %s", m.Streams[i].Name, c.why)
			}
		}
	}
	return ""
}

// settingCouples is what the first Setting of m that says why it couples the nodes
// (Coupling) says, or "".
func settingCouples(m *Model) string {
	for _, s := range m.Mechanisms {
		if c, ok := s.(Coupling); ok {
			if why := c.Couples(); why != "" {
				return why
			}
		}
	}
	return ""
}

// RunOn simulates the model that build returns on up to cores workers, and returns the
// same Result as Run on one model of build, to the byte, whatever cores. build is called
// once per worker and must return a fresh model each time, all of the same scenario and
// seed. A model that cannot be split (OneCoreReason), or whose split run cannot be merged
// exactly (a saturated run, two sampled completions at the same nanosecond on two
// workers), runs on one engine, and Result.OneCore says why.
func RunOn(cores int, build func() *Model) *Result {
	m := build()
	if cores <= 1 {
		res := Run(m)
		res.Cores = 1
		return res
	}
	if why := OneCoreReason(m); why != "" {
		res := Run(m)
		res.Cores, res.OneCore = 1, why
		return res
	}
	cores = min(cores, len(m.Nodes)) // a worker serves one node at least
	res, why := runSplit(cores, build)
	if why != "" {
		res = Run(build())
		res.Cores, res.OneCore = 1, why
		return res
	}
	res.Cores = cores
	return res
}

// runSplit runs the scenario on workers engines, each over a model of build, and merges
// what they recorded; it returns the reason when the merge cannot be exact, and the
// Result is then nil.
//
// The workers' models and engines are set up one after the other, each followed by a
// fence (fences.fence), so that no two workers' state shares a cache line: two cores
// writing to one line take turns at it, and a run of twelve nodes split that way took
// 2.4 times as long on two cores as on one.
func runSplit(workers int, build func() *Model) (*Result, string) {
	es, f, why := setUpSplit(workers, build)
	if why != "" {
		return nil, why
	}
	var wg sync.WaitGroup
	for _, e := range es {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.simulate()
		}()
	}
	wg.Wait()
	runtime.KeepAlive(f)
	if why := merge(es); why != "" {
		return nil, why
	}
	es[0].part = nil
	es[0].wrapUp()
	return es[0].res, ""
}

// setUpSplit builds the workers' models and engines for runSplit, a fence after each,
// and returns them with the fences, or why the run cannot be split. Every model is built
// here, under the hold, the first worker's too: one built before it (RunOn's, which
// decided to split) may sit beside memory a collection frees for the next worker.
//
// With a soft memory limit set (cmd/shardsim sets one for streamed runs, which are not
// split), the collector still runs at the limit during the hold, and the fences may then
// not keep every line apart: a matter of speed only.
func setUpSplit(workers int, build func() *Model) ([]*engine, *fences, string) {
	// A collection during the set-up would hand the allocator back spans with free slots
	// beside objects of workers already set up, past the fences: none runs until the
	// workers are set up (it waits for one under way to finish marking first).
	defer holdGC()()
	es := make([]*engine, workers)
	f := &fences{}
	for w := range es {
		m := build()
		if m.ran {
			panic("sim: this Model has already run, and its generators and planners hold that run's state; build a fresh model for every run")
		}
		m.ran = true
		es[w] = newEngine(m)
		if why := es[w].coupled(); why != "" {
			return nil, nil, why
		}
		es[w].serveShare(w, workers)
		f.fence()
	}
	return es, f, ""
}

// gcHeld counts the split runs being set up (setUpSplit), which hold the collector off
// while they are: the setting is the process's, and two variants run side by side (-j)
// may set up at once, so the first turns collection off and the last turns it back on.
var gcHeld struct {
	sync.Mutex
	n       int
	percent int // the setting before the first
}

// holdGC turns garbage collection off until the function it returns is called.
func holdGC() (release func()) {
	gcHeld.Lock()
	if gcHeld.n++; gcHeld.n == 1 {
		gcHeld.percent = debug.SetGCPercent(-1)
	}
	gcHeld.Unlock()
	return func() {
		gcHeld.Lock()
		if gcHeld.n--; gcHeld.n == 0 {
			debug.SetGCPercent(gcHeld.percent)
		}
		gcHeld.Unlock()
	}
}

// fenceMax is the largest size fence allocates.
const fenceMax = 1024

// fences are what fence allocated, kept for as long as the workers run.
type fences struct {
	plain [][]byte  // objects without pointers
	ptrs  [][]*byte // objects with pointers, which Go allocates from spans of their own
}

// fence allocates, and keeps, a little of every small size, with and without pointers:
// Go's allocator hands out the objects of one size from one span in address order, so
// what a worker sets up after a fence starts a cache line (64 bytes) or more past what
// the worker before it set up. Objects larger than fenceMax can share a line with a
// neighbour at their ends only.
func (f *fences) fence() {
	for range 16 {
		f.plain = append(f.plain, make([]byte, 8)) // the tiny allocator's 16-byte blocks
	}
	for n := 8; n <= fenceMax; n += 8 {
		for range (64 + n - 1) / n { // 64 bytes or more of each size
			f.plain = append(f.plain, make([]byte, n))
			f.ptrs = append(f.ptrs, make([]*byte, n/8))
		}
	}
}

// coupled says what in the engine couples its nodes, or "": the engine's own view of what
// OneCoreReason reads in the model, so that a mechanism added later and not named there
// keeps its runs on one engine rather than splitting them wrong.
func (e *engine) coupled() string {
	if len(e.all) > 0 || len(e.admits) > 0 || len(e.windowed) > 0 || e.copier != nil ||
		e.ring != nil || e.trackNode || len(e.atNode) > 0 || len(e.watches) > 0 {
		return "a mechanism couples the nodes"
	}
	for i := range e.streams {
		if !e.streams[i].plain {
			return fmt.Sprintf("stream %q is not open-loop with plain requests", e.streams[i].s.Name)
		}
	}
	return ""
}

// serveShare makes the engine worker w of workers: it serves the nodes n with n mod workers
// = w, and stops at its share of the backlog bound.
func (e *engine) serveShare(w, workers int) {
	e.part = &partition{worker: w, owns: make([]bool, e.nNodes), owner: make([]int, e.nNodes)}
	for n := range e.nNodes {
		e.part.owner[n] = n % workers
		e.part.owns[n] = n%workers == w
	}
	e.maxQueued = max(e.maxQueued/workers, 1)
}

// merge puts the workers' figures together in es[0], ready for its wrapUp; it returns why
// it cannot be exact, or "".
func merge(es []*engine) string {
	e := es[0]
	for _, w := range es {
		switch {
		case w.res.Saturated:
			return "the run saturated, and where it did is known on one engine only"
		case w.res.Partial:
			return "the run was interrupted" // one engine stops at once, and says where
		}
	}
	if why := e.joinSplit(es); why != "" {
		return why
	}
	if why := e.replaySamples(es); why != "" {
		return why
	}
	for _, w := range es {
		w.closeWindows(w.streams, w.res.Windows)
		w.endDetail(w.streams)
	}
	for _, w := range es[1:] {
		e.addFigures(w)
	}
	for i := range e.res.Streams {
		if e.res.Streams[i].LatencySum >= 1<<53 {
			return "a latency sum passed 2^53 ns, where the order of additions changes its last bits"
		}
	}
	return ""
}

// joinSplit completes the requests whose visits were split among workers: each ends
// when its latest part did, and is recorded in e as the worker that served that part
// would have recorded it.
func (e *engine) joinSplit(es []*engine) string {
	var all []joinPart
	for _, w := range es {
		all = append(all, w.part.joins...)
	}
	slices.SortStableFunc(all, func(a, b joinPart) int { return a.id.compare(b.id) })
	for len(all) > 0 {
		n := len(es)
		if len(all) < n || all[n-1].id != all[0].id {
			panic(fmt.Sprintf("sim: a split request's parts do not match: %+v", all[0].id))
		}
		parts := all[:n]
		all = all[n:]
		last, tie := 0, false
		fail := failNone
		for i, p := range parts {
			if p.done > parts[last].done {
				last, tie = i, false
			} else if i != last && p.done == parts[last].done {
				tie = true
			}
			fail = max(fail, p.fail)
		}
		p := parts[last]
		st := &e.streams[p.id.stream]
		t := p.done + e.m.Network
		if fail != failNone {
			countFailure(st.out, e.window(t), p.counted, fail)
			continue
		}
		lat := e.recordSuccess(st, p.issue, p.counted, t)
		if p.counted && p.sampled {
			if tie {
				return "a split request ended on two workers at the same nanosecond"
			}
			e.part.joined = append(e.part.joined, sampleLog{t: t, worker: last, seq: p.seq, stream: p.id.stream,
				key: p.key, lat: lat, shard: p.shard, vals: p.vals})
		}
	}
	return ""
}

// replaySamples adds the sampled successes the workers logged to detection's per-key
// latencies in e, in the order of their completions on one engine: by time, and on one
// worker in its own order. Each worker's log is in that order already, and so is, once
// sorted, the log of split requests: the replay merges them.
func (e *engine) replaySamples(es []*engine) string {
	slices.SortFunc(e.part.joined, sampleLog.compare)
	logs := []sampleLogs{sampleLogs{e.part.joined}.trimmed()}
	for _, w := range es {
		logs = append(logs, w.part.logged.trimmed())
	}
	var last *sampleLog
	for {
		next := -1
		for i, l := range logs {
			if len(l) > 0 && (next < 0 || l.head().compare(*logs[next].head()) < 0) {
				next = i
			}
		}
		if next < 0 {
			return ""
		}
		s := logs[next].pop()
		if last != nil && last.t == s.t && last.worker != s.worker {
			return "two sampled requests completed on two workers at the same nanosecond"
		}
		e.streams[s.stream].det.addLatency(s.key, s.lat, s.shard, &s.vals)
		last = s
	}
}

// sampleLogs is a log of sampled successes in chunks, which appending never copies: a
// worker logs one request in detect.DefaultSampleEvery, and a growing slice spent a tenth of a
// split run's time copying its log.
type sampleLogs [][]sampleLog

// sampleChunk is the length of a chunk of sampleLogs.
const sampleChunk = 4096

// add appends s to the log.
func (l *sampleLogs) add(s sampleLog) {
	if n := len(*l); n == 0 || len((*l)[n-1]) == cap((*l)[n-1]) {
		*l = append(*l, make([]sampleLog, 0, sampleChunk))
	}
	c := &(*l)[len(*l)-1]
	*c = append(*c, s)
}

// trimmed is the log without its empty chunks, which head and pop assume away.
func (l sampleLogs) trimmed() sampleLogs {
	return slices.DeleteFunc(slices.Clone(l), func(c []sampleLog) bool { return len(c) == 0 })
}

// head is the log's first entry; the log is not empty.
func (l sampleLogs) head() *sampleLog { return &l[0][0] }

// pop removes the log's first entry and returns it; the log is not empty.
func (l *sampleLogs) pop() *sampleLog {
	s := &(*l)[0][0]
	if (*l)[0] = (*l)[0][1:]; len((*l)[0]) == 0 {
		*l = (*l)[1:]
	}
	return s
}

// compare orders sampled successes by time, then worker, then the worker's order.
func (a sampleLog) compare(b sampleLog) int {
	return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.worker, b.worker), cmp.Compare(a.seq, b.seq))
}

// addFigures adds what worker w recorded for its nodes, its shards and the completions
// it saw to e's figures. A figure of a node or a shard is zero in every worker but its
// own, so adding is taking the owner's; a stream's figures at issue are the same in every
// worker, and stay e's.
func (e *engine) addFigures(w *engine) {
	r, o := e.res, w.res
	addTo(r.ShardBusy, o.ShardBusy)
	addTo(r.ShardOps, o.ShardOps)
	addTo(r.NodeBusy, o.NodeBusy)
	maxTo(r.ShardMaxQueue, o.ShardMaxQueue)
	maxTo(r.NodeMaxQueue, o.NodeMaxQueue)
	addTo(e.shardLat, w.shardLat)
	for s := range r.Shards {
		a, b := &r.Shards[s], &o.Shards[s]
		a.Rows += b.Rows
		a.Rejected += b.Rejected
		a.Failed.add(&b.Failed)
	}
	for i := range r.Streams {
		addCompletions(&r.Streams[i], &o.Streams[i])
		addTo(e.streams[i].latCounts, w.streams[i].latCounts)
	}
}

// addCompletions adds the figures of a stream that are counted as its requests complete
// (and its rows, counted by shard) from o to a.
func addCompletions(a, o *StreamResult) {
	a.Completed += o.Completed
	a.Rejected += o.Rejected
	a.TimedOut += o.TimedOut
	a.Limited += o.Limited
	a.Failed.add(&o.Failed)
	a.LatencySum += o.LatencySum
	a.LatencyMax = max(a.LatencyMax, o.LatencyMax)
	addTo(a.ShardRows, o.ShardRows)
	for w := range a.Win {
		x, y := &a.Win[w], &o.Win[w]
		x.Completed += y.Completed
		x.Errors += y.Errors
		x.Rejected += y.Rejected
		x.Limited += y.Limited
		x.Failed.add(&y.Failed)
		x.TimedOut += y.TimedOut
		x.Max = max(x.Max, y.Max)
		x.Hist.Merge(&y.Hist)
	}
	for i := range a.Fine {
		a.Fine[i].Merge(&o.Fine[i])
	}
}

// addTo adds b to a, element by element.
func addTo[T int64 | Time | uint32](a, b []T) {
	for i := range b {
		a[i] += b[i]
	}
}

// maxTo raises a to b, element by element.
func maxTo(a, b []int32) {
	for i := range b {
		a[i] = max(a[i], b[i])
	}
}
