package queue

import (
	"fmt"
	"math"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/locks"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// queueModel is a job queue on one node with the given cores: workers closed-loop clients
// who think for an exponential think (mean), claim the oldest job of one of queues queue
// shards (uniform) holding its row lock for hold, then spend cost (constant) of CPU; the
// network is net each way. The first second is warmup.
func queueModel(seed uint64, dur sim.Time, workers, cores int, claim Claim, queues uint64, think sim.Time, hold sim.Delay, cost sim.Time, svc sim.ServiceKind, net sim.Time) *sim.Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	return &sim.Model{
		Seed: seed, Duration: dur, Warmup: sim.Second, Window: sim.Second, Network: net,
		Nodes: []sim.Node{{Cores: cores}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "claim", Op: sim.Write, Cost: cost, Service: sim.Service{Kind: svc},
			Fields:  []workload.Generator{workload.NewUniform(queues)},
			Planner: keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
			Clients: workers, Think: sim.Delay{Kind: sim.Exponential, Mean: think},
		}},
		Mechanisms: []sim.Setting{locks.RowLocks{Streams: []locks.Stream{{Hold: hold}}}, JobClaims{Streams: []Claim{claim}}},
	}
}

// claimsPerSecond is the rate of the claims issued after the warmup that completed.
func claimsPerSecond(m *sim.Model, r *sim.Result) float64 {
	return float64(r.Streams[0].Completed) / (m.Duration - m.Warmup).Seconds()
}

// meanLockWait is a locked stream's mean wait for its lock, in seconds.
func meanLockWait(n *metrics.LockCounts) float64 {
	return n.WaitSum / float64(n.Waits) / float64(sim.Second)
}

// lockCounts is what row locks reported of stream i of r.
func lockCounts(t *testing.T, r *sim.Result, i int) *metrics.LockCounts {
	t.Helper()
	n := metrics.LockCountsOf(r, i)
	if n == nil {
		t.Fatalf("row locks reported nothing of stream %d", i)
	}
	return n
}

// closedCPU is the closed network of w customers around an infinite-server delay of mean
// d and a FIFO station of c servers with exponential service of mean s (product form:
// p(k at the station) ∝ d^(w-k)/(w-k)! s^k / prod_{i<=k} min(i, c)); it returns the
// station's throughput sum_k p(k) min(k, c) / s.
func closedCPU(w, c int, d, s float64) float64 {
	// Terms in logarithms: d^(w-k)/(w-k)! overflows for w in the hundreds.
	logs := make([]float64, w+1)
	top := math.Inf(-1)
	for k := 0; k <= w; k++ {
		lg, _ := math.Lgamma(float64(w-k) + 1)
		l := float64(w-k)*math.Log(d) - lg + float64(k)*math.Log(s)
		for i := 1; i <= k; i++ {
			l -= math.Log(float64(min(i, c)))
		}
		logs[k], top = l, max(top, l)
	}
	var norm, x float64
	for k, l := range logs {
		p := math.Exp(l - top)
		norm += p
		x += p * float64(min(k, c)) / s
	}
	return x / norm
}

// shardedHeads is the closed network of w workers around an infinite-server delay of mean d
// and p queue heads, each an exponential FIFO server of mean h, a claim going to a head
// chosen uniformly: product form, so exact mean-value analysis (Reiser and Lavenberg)
// gives its throughput. p = 1 is the repairman model.
func shardedHeads(w, p int, d, h float64) float64 {
	var q, x float64 // the claims at one head, and the throughput, with n workers
	for n := 1; n <= w; n++ {
		r := h * (1 + q) // a claim's time at its head: its hold after those it finds there
		x = float64(n) / (d + r)
		q = x * r / float64(p)
	}
	return x
}

// TestQueueHeadCap: without SKIP LOCKED every worker waits for the queue's head, so a
// queue serves at most 1/mean(hold) claims a second. Seed 1, 60 s after a 1 s warmup
// (60,000 claims), 64 workers (think exponential 1 ms, network 0.25 ms each way, 0.1 ms
// of CPU on 64 cores, so the CPU never queues): with a 1 ms hold, constant or
// exponential, the lock is never idle and serves 1,000 claims/s (tolerance 1%: the
// claims in flight at the ends of the measured span). With 8 queue shards, each claim
// taking one at random, each with its own head (exponential hold), the closed network of
// the delay and 8 heads gives the rate (mean-value analysis: 7,059/s, not 8 x 1,000: a
// head is idle while its share of the workers happens to be elsewhere); tolerance 1%.
func TestQueueHeadCap(t *testing.T) {
	figs := map[string]string{}
	for _, kind := range []sim.ServiceKind{sim.Constant, sim.Exponential} {
		m := queueModel(1, 61*sim.Second, 64, 64, ClaimOldest, 1, sim.Millisecond, sim.Delay{Kind: kind, Mean: sim.Millisecond}, 100*sim.Microsecond, sim.Constant, 250*sim.Microsecond)
		r := sim.Run(m)
		x := claimsPerSecond(m, r)
		figs[map[sim.ServiceKind]string{sim.Constant: "qcap.constant", sim.Exponential: "qcap.exponential"}[kind]] = mechtest.Grouped1(x)
		if math.Abs(x-1000)/1000 > 0.01 {
			t.Errorf("hold %v: %.1f claims/s, want the head's cap 1/hold = 1,000 within 1%%", kind, x)
		}
		if n := lockCounts(t, r, 0); n.Waited < n.Waits*9/10 {
			t.Errorf("hold %v: %d of %d claims queued for the head, want nearly all", kind, n.Waited, n.Waits)
		}
	}
	m := queueModel(1, 61*sim.Second, 64, 64, ClaimOldest, 8, sim.Millisecond, sim.Delay{Kind: sim.Exponential, Mean: sim.Millisecond}, 100*sim.Microsecond, sim.Constant, 250*sim.Microsecond)
	x, want := claimsPerSecond(m, sim.Run(m)), shardedHeads(64, 8, 1.6e-3, 1e-3)
	if math.Abs(x-want)/want > 0.01 {
		t.Errorf("8 queue shards: %.1f claims/s, want the closed network's %.1f within 1%%", x, want)
	}
	t.Logf("8 queue shards: %.1f claims/s (mean-value analysis %.1f)", x, want)
	figs["qcap.sharded"], figs["qcap.mva"] = mechtest.Grouped1(x), mechtest.Grouped1(want)
	mechtest.DocFigures(t, "qcap", figs)
	if r1, _ := mechtest.Repairman(5, 1.6e-3, 1e-3); math.Abs(shardedHeads(5, 1, 1.6e-3, 1e-3)-r1) > 1e-9*r1 {
		t.Errorf("mean-value analysis of one head %.6f, repairman %.6f: want the same", shardedHeads(5, 1, 1.6e-3, 1e-3), r1)
	}
}

// TestQueueHeadRepairman holds the head's lock to the machine-repairman model. With an
// exponential hold (mean h = 1 ms) the head is an exponential FIFO server, and everything
// else a worker does (think, exponential 1 ms; the network twice, 0.25 ms; 0.1 ms of CPU
// on as many cores as workers) is a delay of mean d = 1.6 ms that no worker waits for
// another in: the closed network has product form, whatever the delay's distribution
// (BCMP), and repairman gives its throughput and mean lock wait. Seed 2, 200 s, W = 2, 3,
// 4, 8: 75,000 to 200,000 claims each; tolerance 2% on the throughput and 4% on the
// wait (over seeds 1 to 5 the largest errors were below half of that).
func TestQueueHeadRepairman(t *testing.T) {
	const d, h = 1.6e-3, 1e-3
	figs := map[string]string{}
	for _, w := range []int{2, 3, 4, 8} {
		m := queueModel(2, 201*sim.Second, w, w, ClaimOldest, 1, sim.Millisecond, sim.Delay{Kind: sim.Exponential, Mean: sim.Millisecond}, 100*sim.Microsecond, sim.Constant, 250*sim.Microsecond)
		r := sim.Run(m)
		x, wait := mechtest.Repairman(w, d, h)
		got := claimsPerSecond(m, r)
		gw := meanLockWait(lockCounts(t, r, 0))
		figs[fmt.Sprintf("qrep.x%d", w)], figs[fmt.Sprintf("qrep.sim_x%d", w)] = mechtest.Grouped1(x), mechtest.Grouped1(got)
		figs[fmt.Sprintf("qrep.wait%d", w)], figs[fmt.Sprintf("qrep.sim_wait%d", w)] = fmt.Sprintf("%.3f", wait*1e3), fmt.Sprintf("%.3f", gw*1e3)
		if math.Abs(got-x)/x > 0.02 || math.Abs(gw-wait)/wait > 0.04 {
			t.Errorf("W = %d: %.1f claims/s and a mean lock wait of %.4f ms, repairman %.1f/s and %.4f ms", w, got, gw*1e3, x, wait*1e3)
		} else {
			t.Logf("W = %d: %.1f claims/s (repairman %.1f), mean lock wait %.4f ms (repairman %.4f)", w, got, x, gw*1e3, wait*1e3)
		}
	}
	mechtest.DocFigures(t, "qrep", figs)
}

// TestQueueSkipLocked: with SKIP LOCKED no claim waits, and each worker is a renewal
// process of cycle think + 2 network + hold + CPU, so W workers claim
// W / (E[think] + 2 network + E[hold] + E[cost]) jobs a second (Little's law on the closed
// system) until the cores bind: 64 workers, think 1 ms, network 0.25 ms, hold 1 ms, CPU
// 0.1 ms on 64 cores give 64 / 2.6 ms = 24,615 claims/s, 24.6 times the head's cap.
// On 4 cores with an exponential CPU time of 0.2 ms the cores bind (4 / 0.2 ms =
// 20,000/s, below 64 / 2.7 ms = 23,704/s): the closed network of a delay of 2.5 ms and an
// M/M/4 station (product form) gives the rate. Seed 3, 30 s: about 600,000 claims each;
// tolerance 1%.
func TestQueueSkipLocked(t *testing.T) {
	m := queueModel(3, 31*sim.Second, 64, 64, ClaimSkipLocked, 1, sim.Millisecond, sim.Delay{Kind: sim.Exponential, Mean: sim.Millisecond}, 100*sim.Microsecond, sim.Constant, 250*sim.Microsecond)
	r := sim.Run(m)
	n := lockCounts(t, r, 0)
	figs := map[string]string{}
	want, x := 64/2.6e-3, claimsPerSecond(m, r)
	figs["qskip.rate"], figs["qskip.want"] = mechtest.Grouped1(x), mechtest.Grouped1(want)
	if math.Abs(x-want)/want > 0.01 {
		t.Errorf("64 cores: %.1f claims/s, want 64 / 2.6 ms = %.1f within 1%%", x, want)
	} else {
		t.Logf("64 cores: %.1f claims/s, Little's law %.1f", x, want)
	}
	if n.Waited != 0 || n.Waits < 500_000 || len(n.Hot) != 0 {
		t.Errorf("64 cores: %d of %d claims queued for a lock (%d hot locks), want none of over 500,000", n.Waited, n.Waits, len(n.Hot))
	}
	m = queueModel(3, 31*sim.Second, 64, 4, ClaimSkipLocked, 1, sim.Millisecond, sim.Delay{Kind: sim.Exponential, Mean: sim.Millisecond}, 200*sim.Microsecond, sim.Exponential, 250*sim.Microsecond)
	r = sim.Run(m)
	want, x = closedCPU(64, 4, 2.5e-3, 0.2e-3), claimsPerSecond(m, r)
	figs["qskip.cpu"], figs["qskip.cpu_want"] = mechtest.Grouped1(x), mechtest.Grouped1(want)
	mechtest.DocFigures(t, "qskip", figs)
	if math.Abs(x-want)/want > 0.01 || want > 20_000 {
		t.Errorf("4 cores: %.1f claims/s, want the closed network's %.1f (under the cores' 20,000) within 1%%", x, want)
	} else {
		t.Logf("4 cores: %.1f claims/s, closed network %.1f", x, want)
	}
}

// TestClaimLocks: a claim without SKIP LOCKED locks its queue's head, one lock for every
// claim of the queue, and apart from a plain write's lock of the same key; with it, every
// claim locks a row of its own, and two streams never take the same row.
func TestClaimLocks(t *testing.T) {
	const h = 12345
	head := claims{mode: ClaimOldest}
	if a, b := head.Row(h), head.Row(h); a != b || a == h {
		t.Errorf("head: locks %x and %x of key %x, want one lock, not the key's own", a, b, h)
	}
	if plain := (claims{}); plain.Row(h) != h {
		t.Errorf("no claim: lock %x, want the key's own %x", plain.Row(h), h)
	}
	c1, c2 := claims{mode: ClaimSkipLocked, salt: 0x9e3779b97f4a7c15}, claims{mode: ClaimSkipLocked, salt: 0x6a09e667f3bcc909}
	seen := map[uint64]bool{}
	for range 10_000 {
		for _, c := range []*claims{&c1, &c2} {
			k := c.Row(h)
			if seen[k] {
				t.Fatalf("skip locked: lock %x taken twice", k)
			}
			seen[k] = true
		}
	}
}

// TestNoAllocationsClaims: the claims of a job queue, with and without SKIP LOCKED,
// allocate nothing per request once the pools have grown (mechtest.NoAllocs).
func TestNoAllocationsClaims(t *testing.T) {
	for _, claim := range []Claim{ClaimOldest, ClaimSkipLocked} {
		m := queueModel(4, 100*sim.Second, 64, 4, claim, 8, sim.Millisecond, sim.Delay{Kind: sim.Exponential, Mean: sim.Millisecond}, 200*sim.Microsecond, sim.Exponential, 250*sim.Microsecond)
		m.Window = 100 * sim.Second // no window's histogram is allocated in the measured stretch
		mechtest.NoAllocs(t, m)
	}
}
