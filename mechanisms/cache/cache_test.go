package cache_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/cache"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/mechanisms/replicas"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// Tests of the read cache (docs/mitigations.md, "Cache"): each shows its effect in numbers
// and compares it with a closed form or an exact count, stating its seed, sample size,
// tolerance and the reasoning it compares with. The models are built by the functions
// below, so that the determinism test can build each one twice.

var keyDesign = mechtest.OneFieldKey

// on is the mechanisms of a model with the cache s in front of its stream 0.
func on(s cache.Settings) []sim.Setting {
	return []sim.Setting{cache.Cache{Settings: s, Streams: []int{0}}}
}

// cacheOf is what the cache reported of stream i of r.
func cacheOf(t *testing.T, r *sim.Result, i int) *metrics.CacheCounts {
	t.Helper()
	n := metrics.CacheCountsOf(r, i)
	if n == nil {
		t.Fatalf("the cache reported nothing of stream %d", i)
	}
	return n
}

// ---- 1. cache hit ratio ----

const (
	cacheKeys  = 100_000
	cacheSkew  = 0.99
	cacheCap   = 1000
	cacheRate  = 50_000.0
	cacheNodes = 4
)

// cacheModel: Zipf(1e5, 0.99) point reads at 50,000/s for 4 s (1 s warmup) on 4 shards
// (modulo) of 4-core nodes; with cache, an LRU of 1,000 keys whose TTL outlives the run.
func cacheModel(withCache bool) *sim.Model {
	scheme := keyspace.NewModulo(cacheNodes)
	m := &sim.Model{
		Seed: 11, Duration: 4 * sim.Second, Warmup: sim.Second, Window: sim.Second, Network: 100 * sim.Microsecond,
		Nodes: make([]sim.Node, cacheNodes), ShardNode: make([]int, cacheNodes),
		Streams: []sim.Stream{{
			Name: "get", Op: sim.Read, Cost: 20 * sim.Microsecond,
			Arrivals:  workload.NewPoisson(mechtest.Steady(cacheRate)),
			Fields:    []workload.Generator{workload.NewZipf(cacheKeys, cacheSkew, false)},
			Planner:   keyspace.NewPointPlanner(keyDesign, scheme, true),
			KeyFields: []int{0},
		}},
	}
	for i := range m.Nodes {
		m.Nodes[i], m.ShardNode[i] = sim.Node{Cores: 4}, i
	}
	if withCache {
		m.Mechanisms = on(cache.Settings{Capacity: cacheCap, TTL: sim.Hour, HitCost: 10 * sim.Microsecond})
	}
	return m
}

// che returns Che's approximation of an LRU cache of capacity c under the independent
// reference model with probabilities p: the characteristic time T solves
// sum_i (1 - exp(-p_i T)) = c (by bisection; the left side increases with T), and key i is
// in the cache with probability h_i = 1 - exp(-p_i T).
func che(p []float64, c int) (T float64, h []float64) {
	occ := func(T float64) float64 {
		s := 0.0
		for _, pi := range p {
			s += -math.Expm1(-pi * T)
		}
		return s
	}
	lo, hi := 0.0, 1.0
	for occ(hi) < float64(c) {
		hi *= 2
	}
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if occ(mid) < float64(c) {
			lo = mid
		} else {
			hi = mid
		}
	}
	T = (lo + hi) / 2
	h = make([]float64, len(p))
	for i, pi := range p {
		h[i] = -math.Expm1(-pi * T)
	}
	return T, h
}

// TestCacheHitRatioChe. Seed 11; Zipf(n = 1e5, s = 0.99) unscrambled (workload/zipf.go:
// rank k is drawn with probability (k+1)^-s / sum_{j=1..n} j^-s, summed exactly here); an
// LRU of C = 1,000 keys, TTL beyond the run, no jitter; 150,000 reads after a 1 s warmup (the
// cache fills within the first 50 ms). The hit ratio CacheHits / Offered must match Che's
// approximation sum_i p_i h_i within 3 percentage points (its error for Zipf LRU is well
// under 1 point; the sampling error is about 0.2 points).
//
// The shard of the most popular key: with the cache its reads (ShardOps over windows 1-3)
// must be the no-cache run's times the shard's Che miss ratio
// sum_{i on shard} p_i (1 - h_i) / sum_{i on shard} p_i, within 0.03 (same seed, so both runs
// draw the same keys at the same times; the only difference is which reads the cache
// answers). Also, as a bound needing no approximation: the most popular key (p_0 = 8.3%,
// requested every 0.24 ms) is never evicted, so its shard's reads fall by at least 95% of
// its share of that shard's traffic.
func TestCacheHitRatioChe(t *testing.T) {
	p := make([]float64, cacheKeys)
	sum := 0.0
	for k := cacheKeys - 1; k >= 0; k-- { // small terms first
		p[k] = math.Pow(float64(k+1), -cacheSkew)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	T, h := che(p, cacheCap)
	want := 0.0
	for k := range p {
		want += p[k] * h[k]
	}

	r := sim.Run(cacheModel(true))
	mechtest.Conserve(t, r)
	s := &r.Streams[0]
	n := cacheOf(t, r, 0)
	got := float64(n.Hits) / float64(s.Offered)
	t.Logf("hit ratio %.4f over %d reads; Che %.4f (T = %.0f requests)", got, s.Offered, want, T)
	if math.Abs(got-want) > 0.03 {
		t.Errorf("hit ratio %.4f, Che's approximation %.4f: off by more than 3 points", got, want)
	}
	if n.BackendReads+n.Hits+n.Joined != s.Offered {
		t.Errorf("backend reads %d + hits %d + joined %d != offered %d", n.BackendReads, n.Hits, n.Joined, s.Offered)
	}

	// The hot key's shard.
	scheme := keyspace.NewModulo(cacheNodes)
	shardOf := func(k uint64) int {
		key := keyDesign.Key([]uint64{k}, 0, 0)
		return scheme.Shard(&key)
	}
	hot := shardOf(0)
	var mass, miss float64
	for k := range p {
		if shardOf(uint64(k)) == hot {
			mass += p[k]
			miss += p[k] * (1 - h[k])
		}
	}
	r0 := sim.Run(cacheModel(false))
	ops := func(r *sim.Result) (n int64) {
		for w := 1; w < r.Windows; w++ {
			n += r.ShardOps[w*len(r.Shards)+hot]
		}
		return n
	}
	with, without := ops(r), ops(r0)
	ratio := float64(with) / float64(without)
	t.Logf("hot key's shard %d: %d reads with the cache, %d without: ratio %.4f; Che miss ratio %.4f; hot key's share of the shard %.4f",
		hot, with, without, ratio, miss/mass, p[0]/mass)
	if math.Abs(ratio-miss/mass) > 0.03 {
		t.Errorf("hot shard's reads with/without cache %.4f, want its Che miss ratio %.4f within 0.03", ratio, miss/mass)
	}
	if ratio > 1-0.95*p[0]/mass {
		t.Errorf("hot shard's reads fell only to %.4f of the uncached; the hot key alone is %.4f of them", ratio, p[0]/mass)
	}
	mechtest.DocFigures(t, "che", map[string]string{
		"che.hit": fmt.Sprintf("%.4f", got), "che.reads": mechtest.GroupInt(s.Offered), "che.want": fmt.Sprintf("%.4f", want),
		"che.ratio": fmt.Sprintf("%.4f", ratio), "che.miss": fmt.Sprintf("%.4f", miss/mass),
	})
}

// ---- 2. stampede, single-flight, stale-while-revalidate ----

const (
	stampedeTTL     = sim.Second
	stampedeCost    = 5 * sim.Millisecond
	stampedeNetwork = sim.Millisecond
	stampedeRate    = 2000.0 // one read every 0.5 ms
	stampedeDur     = 5 * sim.Second
)

// stampedeModel: one key read every 0.5 ms (uniform arrivals from t = 0) through a cache
// with a 1 s TTL and no jitter; a miss costs a 5 ms database read on one core, 1 ms of
// network each way.
func stampedeModel(singleFlight bool, swr sim.Time) *sim.Model {
	return &sim.Model{
		Seed: 12, Duration: stampedeDur, Window: sim.Second, Network: stampedeNetwork,
		Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "hot", Op: sim.Read, Cost: stampedeCost, Service: sim.Service{Kind: sim.Constant},
			Arrivals:  workload.NewUniformArrivals(mechtest.Steady(stampedeRate)),
			Fields:    []workload.Generator{workload.NewUniform(1)},
			Planner:   keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
			KeyFields: []int{0},
		}},
		Mechanisms: on(cache.Settings{Capacity: 16, TTL: stampedeTTL, SingleFlight: singleFlight, StaleWhileRevalidate: swr}),
	}
}

// stampedeExpiries is the number of expiries in the run with single-flight. The read
// issued at i misses, is served at once (nothing else reaches the database) and its
// answer reaches the client at i + 2N + cost, where the entry is fresh until
// i + 2N + cost + TTL (client time, compared with the issue times of later reads). So
// misses are issued at k P, P = TTL + cost + 2N = 1.007 s, for k P < Duration: k = 0..4,
// 4 expiries after the first miss (reads come every 0.5 ms; the count is the same for any
// P in [1.0, 1.25) s).
func stampedeExpiries() int {
	P := stampedeTTL + stampedeCost + 2*stampedeNetwork
	return int((stampedeDur - 1) / P)
}

// TestCacheStampede. Seed 12 (the model is deterministic: uniform arrivals, constant
// costs); 10,000 reads of one key in 5 s. Without single-flight, every read that comes
// while a refill is in flight reads the database too: more than one backend read per
// expiry in every window (1 to 4 hold one expiry each). With single-flight exactly
// 1 + expiries backend reads (see stampedeExpiries), the others join the one in flight.
// With stale-while-revalidate (500 ms, longer than a refill) as well, every read after the
// first is a hit or joined the first fill, and each expiry costs one background refresh.
func TestCacheStampede(t *testing.T) {
	exp := stampedeExpiries()
	if exp != 4 {
		t.Fatalf("test set-up: %d expiries, want 4", exp)
	}
	figs := map[string]string{}
	defer func() { mechtest.DocFigures(t, "stampede", figs) }()
	t.Run("no single-flight", func(t *testing.T) {
		r := sim.Run(stampedeModel(false, 0))
		mechtest.Conserve(t, r)
		n := cacheOf(t, r, 0)
		figs["stampede.nosf.backend"] = mechtest.GroupInt(n.BackendReads)
		figs["stampede.nosf.per_expiry"] = fmt.Sprintf("%.0f", float64(n.BackendReads)/float64(exp+1))
		t.Logf("backend reads %d for %d expiries + 1 initial miss; per window %v", n.BackendReads, exp, n.Backend)
		if n.BackendReads <= int64(2*(exp+1)) {
			t.Errorf("backend reads %d, want a stampede: more than 2 per expiry (%d expiries + 1)", n.BackendReads, exp)
		}
		for w := 0; w <= exp; w++ {
			if n.Backend[w] < 2 {
				t.Errorf("window %d: %d backend reads, want a stampede (> 1)", w, n.Backend[w])
			}
		}
		if n.Joined != 0 {
			t.Errorf("%d reads joined without single-flight", n.Joined)
		}
	})
	t.Run("single-flight", func(t *testing.T) {
		r := sim.Run(stampedeModel(true, 0))
		mechtest.Conserve(t, r)
		s := &r.Streams[0]
		n := cacheOf(t, r, 0)
		figs["stampede.sf.backend"] = mechtest.GroupInt(n.BackendReads)
		figs["stampede.sf.joined"] = mechtest.GroupInt(n.Joined)
		t.Logf("backend reads %d, joined %d, hits %d of %d; per window %v", n.BackendReads, n.Joined, n.Hits, s.Offered, n.Backend)
		if n.BackendReads != int64(exp+1) {
			t.Errorf("backend reads %d, want exactly %d (1 initial miss + %d expiries)", n.BackendReads, exp+1, exp)
		}
		for w := 0; w <= exp; w++ {
			if n.Backend[w] != 1 {
				t.Errorf("window %d: %d backend reads, want 1", w, n.Backend[w])
			}
		}
		if n.Joined == 0 {
			t.Errorf("no read joined the refill in flight")
		}
		if n.Hits+n.Joined+n.BackendReads != s.Offered {
			t.Errorf("hits %d + joined %d + backend reads %d != offered %d", n.Hits, n.Joined, n.BackendReads, s.Offered)
		}
	})
	t.Run("stale-while-revalidate", func(t *testing.T) {
		r := sim.Run(stampedeModel(true, 500*sim.Millisecond))
		mechtest.Conserve(t, r)
		s := &r.Streams[0]
		n := cacheOf(t, r, 0)
		figs["stampede.swr.backend"] = mechtest.GroupInt(n.BackendReads)
		figs["stampede.swr.stale"] = mechtest.GroupInt(n.Stale)
		figs["stampede.swr.joined"] = mechtest.GroupInt(n.Joined)
		t.Logf("backend reads %d, hits %d (stale %d), joined %d of %d", n.BackendReads, n.Hits, n.Stale, n.Joined, s.Offered)
		// Only the reads during the very first fill (nothing to serve yet) join it.
		if n.Hits != s.Offered-1-n.Joined {
			t.Errorf("hits %d, want every read but the first and those joining the first fill: %d", n.Hits, s.Offered-1-n.Joined)
		}
		// The first fill reaches the client at cost + 2N; the reads issued before it, but
		// the first, join it.
		if lim := int64((stampedeCost+2*stampedeNetwork)/sim.Time(float64(sim.Second)/stampedeRate)) - 1; n.Joined > lim {
			t.Errorf("%d reads joined, want only those of the first fill (at most %d)", n.Joined, lim)
		}
		if n.BackendReads != int64(exp+1) {
			t.Errorf("backend reads %d, want 1 initial miss + one refresh per expiry = %d", n.BackendReads, exp+1)
		}
		if n.Stale < int64(exp) {
			t.Errorf("%d stale hits, want at least one per expiry (%d)", n.Stale, exp)
		}
		for w := 1; w <= exp; w++ {
			if n.Backend[w] != 1 {
				t.Errorf("window %d: %d backend reads, want 1 refresh", w, n.Backend[w])
			}
		}
	})
}

// TestCacheExpiresInClientTime. Seed 12 (deterministic). The cache sits at the client: a
// hit is answered HitCost after the read is issued (cache.go, hit) and an entry's
// expiry is set in client time, when the filling read's response reaches the client
// (Led: expires = t + TTL, t = done + Network). So a read issued at i can be a hit
// only if the value reached the client by i and has not expired by i. (Found by review:
// the engine looked reads up at i + N, when they would reach a node, and showed a fill to
// reads issued up to 2N before the value reached the client.)
//
// Model of TestCacheStampede without single-flight: the first read, issued at 0, is
// answered at the client at 2N + cost = 7 ms, so the 14 reads issued at 0, 0.5, ...,
// 6.5 ms find nothing and read the database, and every later read of window 0 is a hit:
// window 0 has exactly 14 backend reads.
// With single-flight the next miss is the first read issued at or after the expiry
// 2N + cost + TTL = 1.007 s, so misses come every P = TTL + cost + 2N = 1.007 s; with
// Duration = 4.026 s that is k = 0..3: 4 backend reads (with P = 1.006 s there would be a
// fifth miss at 4.024 s).
func TestCacheExpiresInClientTime(t *testing.T) {
	r := sim.Run(stampedeModel(false, 0))
	if got := cacheOf(t, r, 0).Backend[0]; got != 14 {
		t.Errorf("window 0: %d backend reads, want 14: the reads issued before the first fill reaches the client at 7 ms", got)
	}
	m := stampedeModel(true, 0)
	m.Duration = 4026 * sim.Millisecond
	r = sim.Run(m)
	if got := cacheOf(t, r, 0).BackendReads; got != 4 {
		t.Errorf("single-flight, 4.026 s: %d backend reads, want 4 (misses issued every TTL + cost + 2N = 1.007 s)", got)
	}
}

// TestWaiterKeepsItsDeadline: reads of one key, 100/s from t = 0, each database read takes
// 50 ms, single-flight on. The first read leads; the reads issued in the next 50 ms join
// it. A stream with a 10 ms timeout must see none of its joined reads complete later than
// 10 ms after issue: they time out at their own deadline (before the fix they completed
// with the leader, at up to 50 ms).
func TestWaiterKeepsItsDeadline(t *testing.T) {
	m := &sim.Model{
		Seed: 1, Duration: 30 * sim.Millisecond, Window: 30 * sim.Millisecond,
		Nodes: []sim.Node{{Cores: 8}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "r", Op: sim.Read, Cost: 50 * sim.Millisecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals:  workload.NewUniformArrivals(mechtest.Steady(100)),
			Fields:    []workload.Generator{workload.NewUniform(1)},
			Planner:   keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
			Client:    sim.Client{Timeout: 10 * sim.Millisecond},
			KeyFields: []int{0},
		}},
		Mechanisms: on(cache.Settings{Capacity: 10, TTL: sim.Hour, SingleFlight: true}),
	}
	r := sim.Run(m)
	mechtest.Conserve(t, r)
	s := r.Streams[0]
	n := cacheOf(t, r, 0)
	if n.Joined == 0 || s.Completed != 0 || s.LatencyMax > 10*sim.Millisecond {
		t.Errorf("joined %d, completed %d, max latency %v; want joins, and every read timed out at 10 ms", n.Joined, s.Completed, s.LatencyMax)
	}
}

// TestSampledShardOfCacheHits: with every request sampled, the shard that per-key latency
// reports for a key must be the shard its hot-key entry reports, cache hits included
// (before the fix, hits and joined reads reported shard 0).
func TestSampledShardOfCacheHits(t *testing.T) {
	m := cacheModel(true)
	m.Detect = detect.Config{SampleEvery: 1, MaxKeys: 100_000}
	r := sim.Run(m)
	s := r.Streams[0]
	shard := map[uint64]int{}
	for _, k := range s.HotKeys {
		shard[k.Values[0]] = k.Shard
	}
	checked := 0
	for _, kl := range s.KeyLatencies {
		if sh, ok := shard[kl.Values[0]]; ok {
			checked++
			if sh != kl.Shard {
				t.Errorf("key %d: hot keys say shard %d, key latencies %d", kl.Values[0], sh, kl.Shard)
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d hot keys found among the key latencies", checked)
	}
}

// TestBackendReadsAreSent: a cached stream whose misses a rejecting rate limit mostly
// turns away. BackendReads must count the database reads actually sent, which are the
// subrequests the shards served (one partition each, every read counted: no warmup);
// before the fix it counted the limited misses too.
func TestBackendReadsAreSent(t *testing.T) {
	m := cacheModel(true)
	m.Streams[0].Client.Limit = &sim.Limit{Rate: 1000, Burst: 1}
	m.Warmup = 0
	r := sim.Run(m)
	s := r.Streams[0]
	n := cacheOf(t, r, 0)
	var ops int64
	for _, sh := range r.Shards {
		ops += sh.Ops
	}
	if s.Limited == 0 || n.BackendReads != ops {
		t.Errorf("backend reads %d, shard ops %d, limited %d; want reads = ops and some limited", n.BackendReads, ops, s.Limited)
	}
}

// allocModel is a busy model with every per-request mitigation that meets the cache on: a
// cache (LRU of 10,000, 50 ms TTL with jitter, single-flight, stale-while-revalidate) in
// front of Zipf reads, clients with timeouts and retries, a queueing client rate limit on
// the writes, node queue limits, one follower per shard with reads from any copy,
// non-binding partition limits, and detection (KeyFields) on both streams.
func allocModel(dur sim.Time) *sim.Model {
	const shards = 8
	scheme := keyspace.NewModulo(shards)
	cli := sim.Client{Timeout: 2 * sim.Millisecond, Retries: 2, Backoff: sim.Millisecond, BackoffMax: 8 * sim.Millisecond}
	m := &sim.Model{
		Seed: 20, Duration: dur, Window: dur, Network: 200 * sim.Microsecond,
		Nodes: make([]sim.Node, shards), ShardNode: make([]int, shards),
		Streams: []sim.Stream{
			{Name: "r", Op: sim.Read, Cost: 150 * sim.Microsecond, KeyFields: []int{0}, Client: cli,
				Arrivals: workload.NewPoisson(mechtest.Steady(40000)),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(keyDesign, scheme, true)},
			{Name: "w", Op: sim.Write, Cost: 200 * sim.Microsecond, KeyFields: []int{0},
				Client:   sim.Client{Timeout: 2 * sim.Millisecond, Retries: 2, Backoff: sim.Millisecond, BackoffMax: 8 * sim.Millisecond, Limit: &sim.Limit{Rate: 20000, Burst: 10, Queue: true}},
				Arrivals: workload.NewPoisson(mechtest.Steady(8000)),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(keyDesign, scheme, false)},
		},
		Mechanisms: append(append([]sim.Setting{replicas.Replicas{Followers: 1, ReadAny: true, ApplyCost: []sim.Time{0, 50 * sim.Microsecond}}},
			on(cache.Settings{Capacity: 10000, TTL: 50 * sim.Millisecond, Jitter: 0.2, HitCost: 50 * sim.Microsecond, SingleFlight: true, StaleWhileRevalidate: 10 * sim.Millisecond})...),
			limits.Limits{Settings: scenario.PartitionLimits{WriteUnits: 1e6, ReadUnits: 1e6, Burst: sim.Second}}),
	}
	for i := range m.Nodes {
		m.Nodes[i], m.ShardNode[i] = sim.Node{Cores: 1, QueueLimit: 8}, i
	}
	return m
}

// TestNoAllocs: allocModel's event loop allocates nothing in steady state, and the run
// exercises what it is meant to: hits, joins, stale hits, timeouts and full queues.
func TestNoAllocs(t *testing.T) {
	mechtest.NoAllocs(t, allocModel(100*sim.Second))
	r := sim.Run(allocModel(2 * sim.Second))
	mechtest.Conserve(t, r)
	s := r.Streams[0]
	n := cacheOf(t, r, 0)
	if n.Hits == 0 || n.Joined == 0 || n.Stale == 0 || s.TimedOut == 0 || s.Rejected == 0 {
		t.Errorf("hits %d, joined %d, stale %d, timed out %d, rejected %d: the model does not exercise the cache it is meant to",
			n.Hits, n.Joined, n.Stale, s.TimedOut, s.Rejected)
	}
}

// TestDeterministic runs each model above twice and requires identical Results
// (reflect.DeepEqual over the whole Result, histograms included).
func TestDeterministic(t *testing.T) {
	for _, c := range []struct {
		name string
		mk   func() *sim.Model
	}{
		{"cache", func() *sim.Model { return cacheModel(true) }},
		{"stampede", func() *sim.Model { return stampedeModel(false, 0) }},
		{"single-flight+swr", func() *sim.Model { return stampedeModel(true, 500*sim.Millisecond) }},
		{"all", func() *sim.Model { return allocModel(sim.Second) }},
	} {
		if a, b := sim.Run(c.mk()), sim.Run(c.mk()); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs of the same model differ", c.name)
		}
	}
}
