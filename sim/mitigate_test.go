package sim

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// Tests of the mitigations (mitigate.go): each shows the mitigation's effect in numbers and
// compares it with a closed form or an exact count. Each states its seed, sample size,
// tolerance and the reasoning it compares with. The models are built by the functions
// below, so that the determinism test can build each one twice.

// keyDesign is a key of one part: field 0 as it is.
var keyDesign = &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}

func constRate(r float64) workload.Schedule { return workload.Schedule{{At: 0, Rate: r}} }

// conserve checks that every request issued after the warmup has exactly one outcome, once
// the run has drained (it must not have stopped early).
func conserve(t *testing.T, r *Result) {
	t.Helper()
	if r.Saturated || r.Partial {
		t.Fatalf("run stopped early (saturated %v at %v, partial %v): nothing to conserve", r.Saturated, r.SaturatedAt, r.Partial)
	}
	for i := range r.Streams {
		s := &r.Streams[i]
		if sum := s.Completed + s.Rejected + s.TimedOut + s.Limited + s.Failed.Sum(); sum != s.Offered {
			t.Errorf("stream %s: completed %d + rejected %d + timed out %d + limited %d + by registered cause %v = %d, want offered %d",
				s.Name, s.Completed, s.Rejected, s.TimedOut, s.Limited, s.Failed, sum, s.Offered)
		}
	}
}

// ---- 3. a subrequest refused at its node (SubAdmit, Core.Refuse) ----

// testLimit is a SubAdmit for sim's own tests of Core.Refuse: each shard's write bucket
// of Rate units a second, banking Burst of them and full at the start, as a partition
// limit without adaptive capacity (mechanisms/limits, whose own tests hold its figures)
// takes one unit a partition written; reads pass. It refuses a write for Cause (the zero
// Cause: testThrottled).
type testLimit struct {
	Rate  float64
	Burst Time
	Cause Cause
}

func (l testLimit) On(c Core) {
	size := l.Rate * max(l.Burst.Seconds(), 1)
	b := &testBuckets{cause: l.Cause, rate: l.Rate, size: size, level: make([]float64, c.Shards()), last: make([]Time, c.Shards())}
	for s := range b.level {
		b.level[s] = size
	}
	c.AdmitSubs(b)
}
func (testLimit) Note() string    { return "" }
func (testLimit) Waiter() float64 { return 0 }

// testThrottled is the cause testBuckets fails a write for: a partition limit's, as
// mechanisms/limits registers it.
var testThrottled = RegisterCause(0, "throttled", true)

type testBuckets struct {
	cause      Cause
	rate, size float64
	level      []float64
	last       []Time
}

func (b *testBuckets) Admit(c Core, now Time, si int32) bool {
	if !c.SubWrite(si) {
		return true
	}
	s, units := c.SubShard(si), float64(c.SubParts(si))
	if now > b.last[s] {
		b.level[s] = min(b.size, b.level[s]+b.rate*float64(now-b.last[s])/float64(Second))
		b.last[s] = now
	}
	if b.level[s] < units {
		c.Refuse(now, si, b.cause)
		return false
	}
	b.level[s] -= units
	return true
}

// writeLimitModel: Poisson writes at 2,000/s, all to one partition on one shard, limited to
// 1,000 write units per second with a 10 s bank (10,000 units, full at the start), 20 s.
func writeLimitModel() *Model {
	return &Model{
		Seed: 13, Duration: 20 * Second, Window: Second, Network: 500 * Microsecond,
		Nodes: []Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "put", Op: Write, Cost: 100 * Microsecond,
			Arrivals: workload.NewPoisson(constRate(2000)),
			Fields:   []workload.Generator{workload.NewUniform(1)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), false),
		}},
		Mechanisms: []Setting{testLimit{Rate: 1000, Burst: 10 * Second}},
	}
}

// TestThrottle: writeLimitModel's SubAdmit refuses about half the writes once its bank is
// spent (mechanisms/limits' TestPartitionWriteLimit holds the figures of a partition
// limit): each refused write is throttled once (Core.Throttle), counted on the stream and
// on its shard, its slot freed (TestMitigationsReleaseSlots), and every write has one
// outcome.
func TestThrottle(t *testing.T) {
	r := Run(writeLimitModel())
	conserve(t, r)
	s := &r.Streams[0]
	if s.Failed[testThrottled] < s.Offered/5 || s.Completed+s.Failed[testThrottled] != s.Offered || r.Shards[0].Failed[testThrottled] != s.Failed[testThrottled] {
		t.Errorf("%d of %d writes throttled, %d completed, the shard counts %d throttled; want a fifth or more throttled, the rest completed, the shard's count the stream's",
			s.Failed[testThrottled], s.Offered, s.Completed, r.Shards[0].Failed[testThrottled])
	}
}

// testUnretried is a cause the client does not retry, at a rank no mechanism takes.
var testUnretried = RegisterCause(MaxCauses-1, "test_unretried", false)

// TestRegisteredCauses: a failure cause a mechanism registers is counted by cause (on the
// stream, its windows and its shard) and retried as registered: writeLimitModel's writes
// with two retries each are retried when throttled (testThrottled), never when refused
// for testUnretried. RegisterCause gives a cause registered alike its Cause again and
// refuses one that clashes.
func TestRegisteredCauses(t *testing.T) {
	counts := func(r *Result) (stream, windows, shard int64, retries int64) {
		s := &r.Streams[0]
		for _, w := range s.Win {
			windows += w.Failed.Sum()
		}
		return s.Failed.Sum(), windows, r.Shards[0].Failed.Sum(), s.Retries
	}
	for _, c := range []struct {
		cause Cause
		retry bool
	}{{testThrottled, true}, {testUnretried, false}} {
		m := writeLimitModel()
		m.Streams[0].Client.Retries = 2
		m.Mechanisms = []Setting{testLimit{Rate: 1000, Burst: 10 * Second, Cause: c.cause}}
		r := Run(m)
		conserve(t, r)
		s := &r.Streams[0]
		stream, windows, shard, retries := counts(r)
		if stream == 0 || s.Failed[c.cause] != stream || windows == 0 || windows > stream || shard < stream {
			t.Errorf("cause %d: failed by cause %v, %d in the windows, %d on the shard; want them all for cause %d", c.cause, s.Failed, windows, shard, c.cause)
		}
		if (retries > 0) != c.retry {
			t.Errorf("cause %d: %d retries, want retried %v", c.cause, retries, c.retry)
		}
	}
	if c := RegisterCause(0, "throttled", true); c != testThrottled {
		t.Errorf("registered alike, throttled is cause %d, want %d", c, testThrottled)
	}
	if c, ok := CauseNamed("test_unretried"); !ok || c != testUnretried {
		t.Errorf("CauseNamed(test_unretried) = %d, %v", c, ok)
	}
	if _, ok := CauseNamed("nothing"); ok {
		t.Error("CauseNamed found a cause nobody registered")
	}
	for _, c := range []struct {
		rank  int
		name  string
		retry bool
	}{{0, "other", true}, {0, "throttled", false}, {1, "throttled", true}, {-1, "x", true}, {MaxCauses, "x", true}, {2, "", true}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterCause(%d, %q, %v) did not panic", c.rank, c.name, c.retry)
				}
			}()
			RegisterCause(c.rank, c.name, c.retry)
		}()
	}
}

// ---- 5. retries under overload ----

// retryModel: one single-core node with a queue of 5, exponential 1 ms service, offered
// 1,500/s (Poisson, 150% of its capacity) for 2 s; the client retries 3 times with
// backoff 2 ms doubling up to 20 ms, and gives up on an attempt after timeout (0: never).
func retryModel(timeout Time) *Model {
	return &Model{
		Seed: 15, Duration: 2 * Second, Window: 500 * Millisecond, Network: 200 * Microsecond,
		Nodes: []Node{{Cores: 1, QueueLimit: 5}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "get", Op: Read, Cost: Millisecond,
			Arrivals: workload.NewPoisson(constRate(1500)),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
			Client:   Client{Timeout: timeout, Retries: 3, Backoff: 2 * Millisecond, BackoffMax: 20 * Millisecond},
		}},
	}
}

// TestRetriesUnderOverload. Seed 15; about 3,000 requests. Exact identities: Retries =
// Attempts - Offered; a request has at most 4 attempts, and one that ends rejected or timed
// out used all 4, so Offered + 3 (Rejected + TimedOut) <= Attempts <= 4 Offered; the
// windows' attempts add up to Attempts less those sent after the run. Amplification: the
// node serves at most 1,000/s, so at least a third of the first attempts fail and
// Attempts >= 1.3 Offered. Without timeouts, every request the node serves completes one
// request (Shard Ops <= Completed, the difference being those served after the run).
// With a 3 ms timeout some attempts time out, and the node still serves them: Ops >
// Completed (wasted work).
func TestRetriesUnderOverload(t *testing.T) {
	retryFigs := map[string]string{}
	defer func() { docFigures(t, "retries", retryFigs) }()
	for _, timeout := range []Time{0, 3 * Millisecond} {
		t.Run(fmt.Sprintf("timeout=%v", timeout), func(t *testing.T) {
			r := Run(retryModel(timeout))
			conserve(t, r)
			s := &r.Streams[0]
			k := "retries.none"
			if timeout > 0 {
				k = "retries.short"
			}
			retryFigs[k+".offered"] = groupInt(s.Offered)
			retryFigs[k+".attempts"] = fmt.Sprintf("%s (%.2fx)", groupInt(s.Attempts), float64(s.Attempts)/float64(s.Offered))
			retryFigs[k+".completed"] = groupInt(s.Completed)
			retryFigs[k+".rejected"] = groupInt(s.Rejected)
			retryFigs[k+".timed_out"] = groupInt(s.TimedOut)
			retryFigs[k+".ops"] = groupInt(r.Shards[0].Ops)
			t.Logf("offered %d, attempts %d (x%.2f), retries %d, completed %d, rejected %d, timed out %d, node ops %d",
				s.Offered, s.Attempts, float64(s.Attempts)/float64(s.Offered), s.Retries, s.Completed, s.Rejected, s.TimedOut, r.Shards[0].Ops)
			if s.Retries != s.Attempts-s.Offered {
				t.Errorf("retries %d != attempts %d - offered %d", s.Retries, s.Attempts, s.Offered)
			}
			if float64(s.Attempts) < 1.3*float64(s.Offered) {
				t.Errorf("attempts %d, want retry amplification >= 1.3 x offered %d", s.Attempts, s.Offered)
			}
			if lo := s.Offered + 3*(s.Rejected+s.TimedOut); s.Attempts < lo || s.Attempts > 4*s.Offered {
				t.Errorf("attempts %d outside [%d, %d]", s.Attempts, lo, 4*s.Offered)
			}
			// The windows count the retries sent during the run (there is no warmup); those
			// sent after its end, while the backlog drains, fall in no window.
			var winRetries int64
			for w := range s.Win {
				winRetries += s.Win[w].Retries
			}
			if winRetries > s.Retries || winRetries < s.Retries-100 {
				t.Errorf("windows hold %d retries, the run %d", winRetries, s.Retries)
			}
			if s.Rejected == 0 {
				t.Errorf("no request rejected at 150%% load with a queue of 5")
			}
			if timeout == 0 {
				if s.TimedOut != 0 {
					t.Errorf("%d timed out without a timeout", s.TimedOut)
				}
				if ops := r.Shards[0].Ops; ops > s.Completed || ops < s.Completed-50 {
					t.Errorf("node served %d, completed %d: want every served read to complete one request", ops, s.Completed)
				}
			} else {
				if s.TimedOut == 0 {
					t.Errorf("no request timed out with a 3 ms timeout")
				}
				if r.Shards[0].Ops <= s.Completed {
					t.Errorf("node served %d <= completed %d: timed-out attempts must still be served", r.Shards[0].Ops, s.Completed)
				}
			}
		})
	}
}

// ---- 6. client rate limit ----

// rateLimitModel: 1,000 reads/s (uniform: one every 1 ms from t = 0, or Poisson) through a
// client limit of 500/s with a burst of 1, for dur.
func rateLimitModel(queue, poisson bool, dur Time) *Model {
	var arr workload.Arrivals = workload.NewUniformArrivals(constRate(1000))
	if poisson {
		arr = workload.NewPoisson(constRate(1000))
	}
	return &Model{
		Seed: 16, Duration: dur, Window: Second, Network: Millisecond,
		Nodes: []Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "get", Op: Read, Cost: 100 * Microsecond, Service: Service{Kind: Constant},
			Arrivals: arr,
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
			Client:   Client{Limit: &Limit{Rate: 500, Burst: 1, Queue: queue}},
		}},
	}
}

// TestClientRateLimit. Seed 16.
//   - Uniform, rejecting, 10 s (10,000 requests): a token every 2 ms, a request every 1 ms:
//     exactly every other request is limited, 5,000 ± 1.
//   - Poisson, rejecting, 10 s: with a burst of 1 the admitted requests form a renewal
//     process, each admission followed by the 2 ms token interval and then an exponential
//     wait for the next arrival (mean 1 ms): 1 / 3 ms = 333/s admitted, 2/3 limited. The
//     count's relative standard deviation is about 0.6%; tolerance 3%.
//   - Uniform, queueing, 2 s (2,000 requests): nothing is limited; request k (issued at
//     k ms) gets its token at 2k ms, so completions come at 500/s (windows 0 and 1: 499 and
//     500 ± 2) and the last request, issued at 1.999 s, waits 1.999 s: the largest latency
//     is 1.999 s + 2 network + 0.1 ms service = 2.0011 s within 0.1%.
func TestClientRateLimit(t *testing.T) {
	figs := map[string]string{}
	defer func() { docFigures(t, "ratelimit", figs) }()
	t.Run("reject", func(t *testing.T) {
		r := Run(rateLimitModel(false, false, 10*Second))
		conserve(t, r)
		s := &r.Streams[0]
		figs["ratelimit.limited"] = groupInt(s.Limited)
		figs["ratelimit.offered"] = groupInt(s.Offered)
		t.Logf("limited %d of %d", s.Limited, s.Offered)
		if s.Offered != 10000 || s.Limited < 4999 || s.Limited > 5001 {
			t.Errorf("limited %d of %d, want half of 10,000", s.Limited, s.Offered)
		}
	})
	t.Run("reject poisson", func(t *testing.T) {
		r := Run(rateLimitModel(false, true, 10*Second))
		conserve(t, r)
		s := &r.Streams[0]
		adm := float64(s.Offered-s.Limited) / r.Duration.Seconds()
		figs["ratelimit.admitted"] = fmt.Sprintf("%.1f/s", adm)
		t.Logf("admitted %.1f/s of %d offered; renewal theory 333.3/s", adm, s.Offered)
		if math.Abs(adm-1000.0/3)/(1000.0/3) > 0.03 {
			t.Errorf("admitted %.1f/s, want 1/(2 ms + 1 ms) = 333.3/s within 3%%", adm)
		}
	})
	t.Run("queue", func(t *testing.T) {
		r := Run(rateLimitModel(true, false, 2*Second))
		conserve(t, r)
		s := &r.Streams[0]
		want := 1999*Millisecond + 2*Millisecond + 100*Microsecond
		figs["ratelimit.queue_limited"] = groupInt(s.Limited)
		figs["ratelimit.per_second"] = fmt.Sprintf("%d and %d", s.Win[0].Completed, s.Win[1].Completed)
		figs["ratelimit.max"] = fmt.Sprintf("%.4f s", s.LatencyMax.Seconds())
		t.Logf("limited %d, completed %d of %d; per window %d, %d; max latency %v (backlog wait: %v), p99 %.1f ms",
			s.Limited, s.Completed, s.Offered, s.Win[0].Completed, s.Win[1].Completed, s.LatencyMax, want, s.QuantileMillis(0.99))
		if s.Limited != 0 || s.Completed != s.Offered {
			t.Errorf("limited %d, completed %d of %d: a queueing limit must limit nothing", s.Limited, s.Completed, s.Offered)
		}
		if c := s.Win[0].Completed; c < 497 || c > 501 {
			t.Errorf("window 0: %d completed, want 499 ± 2 (500/s)", c)
		}
		if c := s.Win[1].Completed; c < 498 || c > 502 {
			t.Errorf("window 1: %d completed, want 500 ± 2 (500/s)", c)
		}
		if d := math.Abs(float64(s.LatencyMax-want)) / float64(want); d > 0.001 {
			t.Errorf("max latency %v, want the backlog's wait %v within 0.1%%", s.LatencyMax, want)
		}
		if s.QuantileMillis(0.99) < 0.98*1999 {
			t.Errorf("p99 %.1f ms, want near the last requests' wait of 2 s", s.QuantileMillis(0.99))
		}
	})
}

// ---- 10. determinism ----

// TestMitigationsDeterministic runs each model above twice and requires identical Results
// (reflect.DeepEqual over the whole Result, histograms included).
func TestMitigationsDeterministic(t *testing.T) {
	models := []struct {
		name string
		mk   func() *Model
	}{
		{"write limit", writeLimitModel},
		{"retries+timeouts", func() *Model { return retryModel(3 * Millisecond) }},
		{"rate limit queue", func() *Model { return rateLimitModel(true, false, 2*Second) }},
		{"rate limit poisson", func() *Model { return rateLimitModel(false, true, 10*Second) }},
		{"all", func() *Model { return allocModel(Second) }},
	}
	for _, c := range models {
		t.Run(c.name, func(t *testing.T) {
			a, b := Run(c.mk()), Run(c.mk())
			if !reflect.DeepEqual(a, b) {
				for i := range a.Streams {
					x, y := a.Streams[i], b.Streams[i]
					x.Latency, y.Latency, x.Win, y.Win = nil, nil, nil, nil
					if !reflect.DeepEqual(x, y) {
						t.Errorf("stream %d differs:\n%+v\n%+v", i, x, y)
					}
				}
				t.Fatalf("two runs of the same model differ")
			}
		})
	}
}

// ---- 11. no allocations ----

// allocModel is a busy model with every per-request mitigation of sim's on (the cache's,
// mechanisms/cache, has its own: TestNoAllocs there): Zipf reads and writes, clients with
// timeouts and retries, a queueing client rate limit on the writes, node queue
// limits, one follower per shard with reads from any copy, and detection (KeyFields) on
// both streams. (Partition limits, mechanisms/limits, have their own: TestNoAllocs there.)
func allocModel(dur Time) *Model {
	const shards = 8
	d := keyDesign
	scheme := keyspace.NewModulo(shards)
	cli := Client{Timeout: 2 * Millisecond, Retries: 2, Backoff: Millisecond, BackoffMax: 8 * Millisecond}
	m := &Model{
		Seed: 20, Duration: dur, Window: dur, Network: 200 * Microsecond,
		Nodes: make([]Node, shards), ShardNode: make([]int, shards),
		Streams: []Stream{
			{Name: "r", Op: Read, Cost: 150 * Microsecond, KeyFields: []int{0}, Client: cli,
				Arrivals: workload.NewPoisson(constRate(40000)),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(d, scheme, true)},
			{Name: "w", Op: Write, Cost: 200 * Microsecond, KeyFields: []int{0},
				Client:   Client{Timeout: 2 * Millisecond, Retries: 2, Backoff: Millisecond, BackoffMax: 8 * Millisecond, Limit: &Limit{Rate: 20000, Burst: 10, Queue: true}},
				Arrivals: workload.NewPoisson(constRate(8000)),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(d, scheme, false)},
		},
		Mechanisms: []Setting{followers{n: 1, any: true, cost: 50 * Microsecond}},
	}
	for i := range m.Nodes {
		m.Nodes[i], m.ShardNode[i] = Node{Cores: 1, QueueLimit: 8}, i
	}
	return m
}

// reserve grows the engine's slot pools (requests, subrequests, timers, kept visits, the
// detection's pending samples) and the event heap to twice their size (pools: plus 64), so that a later
// peak of requests in flight does not grow them: the engine's design is that once a pool
// has reached the run's largest number in flight, taking a slot does not allocate, and
// a random new peak after the warmup is not what this test looks for.
func reserve(e *engine) {
	growPool(&e.reqs)
	growPool(&e.subs)
	growPool(&e.timers)
	for len(e.visits) < len(e.reqs.items) {
		e.visits = append(e.visits, nil)
	}
	for i := range e.visits {
		if e.visits[i] == nil {
			e.visits[i] = make([]keyspace.Visit, 0, 4)
		}
	}
	for i := range e.streams {
		if d := e.streams[i].det; d != nil {
			growPool(&d.pending)
		}
	}
	e.h.ev = slices.Grow(e.h.ev, len(e.h.ev))
}

func growPool[T any](p *pool[T]) {
	n := len(p.items) + 64
	taken := make([]int32, 0, n)
	for range n {
		taken = append(taken, p.take())
	}
	p.free = slices.Grow(p.free, len(p.items))
	for i := len(taken) - 1; i >= 0; i-- {
		p.put(taken[i])
	}
}

// TestNoAllocationsWithMitigations is TestNoAllocationsPerRequest for allocModel: after
// 1,000,000 events of warmup (about 7 s simulated) and reserve, 20 stretches of 10,000
// events must allocate nothing. Each stretch is measured on its own (testing.AllocsPerRun
// with one run), so that a single allocation in any stretch fails the test instead of
// vanishing in the integer average of AllocsPerRun(20, ...). The window spans the whole
// run, so no per-window histogram is allocated in the measured stretch. Detection keeps
// its default MaxKeys (65,536 per-key latency slots), which the sampled Zipf keys do not
// fill in the run.
func TestNoAllocationsWithMitigations(t *testing.T) {
	e := newEngine(allocModel(100 * Second))
	for i := 0; i < 1_000_000; i++ {
		if !e.step() {
			t.Fatal("model ran out of events in warmup")
		}
	}
	reserve(e)
	var total float64
	for i := 0; i < 20; i++ {
		a := testing.AllocsPerRun(1, func() {
			for j := 0; j < 10_000; j++ {
				if !e.step() {
					t.Fatal("model ran out of events")
				}
			}
		})
		if a != 0 {
			t.Logf("stretch %d (to %v): %v allocations", i, e.now, a)
		}
		total += a
	}
	out := e.res.Streams
	t.Logf("after %v: reads %d (timed out %d, rejected %d, retries %d), writes %d (timed out %d, rejected %d); per-key latency slots %d, %d",
		e.now, out[0].Offered, out[0].TimedOut, out[0].Rejected, out[0].Retries,
		out[1].Offered, out[1].TimedOut, out[1].Rejected, e.streams[0].det.lat.Len(), e.streams[1].det.lat.Len())
	if out[0].TimedOut == 0 || out[0].Rejected == 0 || out[1].TimedOut+out[1].Rejected == 0 {
		t.Errorf("the model does not exercise the mitigations it is meant to")
	}
	if total != 0 {
		t.Errorf("%v allocations in 20 × 10,000 events in steady state, want 0", total)
	}
}

// TestMitigationsReleaseSlots runs each model to its end and requires every request,
// subrequest and timer slot back in its pool and nothing left queued or scheduled: a
// request the mitigations forget (a joined read never answered, a limited or throttled
// request never released) would stay taken.
func TestMitigationsReleaseSlots(t *testing.T) {
	for name, m := range map[string]*Model{
		"all":     allocModel(2 * Second),
		"retries": retryModel(3 * Millisecond), "queueing limit": rateLimitModel(true, false, 2*Second),
		"rejecting limit": rateLimitModel(false, true, 2*Second), "write limit": writeLimitModel(),
	} {
		e := newEngine(m)
		e.run()
		if len(e.reqs.free) != len(e.reqs.items) || len(e.subs.free) != len(e.subs.items) || len(e.timers.free) != len(e.timers.items) || e.queued != 0 || e.h.len() != 0 {
			t.Errorf("%s: requests %d of %d free, subrequests %d of %d, timers %d of %d; %d queued, %d events left",
				name, len(e.reqs.free), len(e.reqs.items), len(e.subs.free), len(e.subs.items), len(e.timers.free), len(e.timers.items), e.queued, e.h.len())
		}
	}
}

// TestLiftedLimitReleasesHeld: 1,000 writes/s (uniform) held by a queueing limit of 500/s
// for 4 s build a backlog of about 2,000 held requests; an action lifts the limit at 4 s.
// Every held request must leave at once (found by review: they kept the departure times
// the old limit gave them and trickled out at 500/s for another 4 s), so the windows after
// the lift complete the backlog and the new arrivals: window 4 holds about 2,000 + 1,000
// completions and no request waits past 5 s. Replacing the limit by a faster one (2,000/s)
// instead re-queues the backlog behind the new rate: it drains in about 2 s.
func TestLiftedLimitReleasesHeld(t *testing.T) {
	mk := func(newLimit *Limit) *Model {
		d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
		return &Model{
			Seed: 3, Duration: 8 * Second, Window: Second,
			Nodes: []Node{{Cores: 8}}, ShardNode: []int{0},
			Streams: []Stream{{
				Name: "w", Op: Write, Cost: 100 * Microsecond, Service: Service{Kind: Constant},
				Arrivals: workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 1000}}),
				Fields:   []workload.Generator{workload.NewUniform(1000)},
				Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
				Client:   Client{Limit: &Limit{Rate: 500, Burst: 1, Queue: true}},
			}},
			Mechanisms: []Setting{limitChanges{{At: 4 * Second, Stream: 0, Limit: newLimit}}},
		}
	}
	r := Run(mk(nil))
	conserve(t, r)
	s := &r.Streams[0]
	var before int64
	for w := 0; w < 4; w++ {
		before += s.Win[w].Completed
	}
	if before < 1900 || before > 2100 {
		t.Errorf("first 4 s: %d completions, want about 500/s = 2,000", before)
	}
	if c := s.Win[4].Completed; c < 2900 {
		t.Errorf("lifted at 4 s: window 4 completed %d, want the ~2,000 held plus ~1,000 new", c)
	}
	if m := s.LatencyMax; m > 4100*Millisecond {
		t.Errorf("lifted: longest latency %v, want no wait past the lift (about 4 s at most)", m)
	}
	r = Run(mk(&Limit{Rate: 2000, Burst: 1, Queue: true}))
	conserve(t, r)
	s = &r.Streams[0]
	// At 2,000/s with 1,000/s arriving, the ~2,000 held drain at a net 1,000/s: 2 s.
	if c := s.Win[4].Completed + s.Win[5].Completed; c < 3800 || c > 4100 {
		t.Errorf("faster limit: windows 4-5 completed %d, want 2,000/s = about 4,000", c)
	}
	if c := s.Win[7].Completed; c < 950 || c > 1050 {
		t.Errorf("faster limit: window 7 completed %d, want the arrival rate 1,000 once drained", c)
	}
}

// A run that stops early is measured over the time it covered. One single-core node is
// offered twice what it serves (2,000/s of 1 ms each) for 20 s, and the run saturates once
// 1,000 subrequests wait (after about 1 s). The node was busy the whole time it ran, so its
// load is busy time / covered time: 1 within 0.01, not about 1 s / 20 s as it would be over
// the whole duration; the windows after the stop have no capacity.
func TestStoppedRunLoadOverCoveredTime(t *testing.T) {
	m := rateLimitModel(false, false, 20*Second)
	m.Streams[0].Client = Client{}
	m.Streams[0].Cost = Millisecond
	m.Streams[0].Arrivals = workload.NewUniformArrivals(constRate(2000))
	m.MaxQueued = 1000
	r := Run(m)
	if !r.Saturated || r.Elapsed >= 5*Second {
		t.Fatalf("saturated %v at %v: want the run to stop within a few seconds", r.Saturated, r.Elapsed)
	}
	covered := float64(r.Elapsed)
	if got, want := r.NodeLoad(0), float64(r.Nodes[0].Busy)/covered; math.Abs(got-want) > 1e-9 || math.Abs(got-1) > 0.01 {
		t.Errorf("node load %.4f, want busy / covered time %.4f, about 1", got, want)
	}
	if got := r.Utilization(0); math.Abs(got-1) > 0.01 {
		t.Errorf("shard load %.4f, want about 1 over the %v the run covered", got, r.Elapsed)
	}
	if last := r.Windows - 1; r.NodeCapacity[last] != 0 || r.WindowSpan(last) != 0 {
		t.Errorf("window %d after the stop: capacity %v, span %v; want none", last, r.NodeCapacity[last], r.WindowSpan(last))
	}
}

// groupInt writes n with thousands separators, as the docs quote figures: 1,234,567.
func groupInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
