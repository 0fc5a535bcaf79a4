package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// lockModel is one node with the given cores serving writes at rate per second to n
// distinct keys (uniform), each holding its key's lock for lock; cost is the CPU time
// after the lock. salt > 1 spreads every key over that many salt buckets (random).
func lockModel(seed uint64, dur Time, cores int, rate float64, n uint64, lock Delay, cost Time, salt uint64) *Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}, Salt: salt, SaltMode: keyspace.SaltRandom}
	return &Model{
		Seed: seed, Duration: dur, Window: Second,
		Nodes: []Node{{Cores: cores}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "w", Op: Write, Cost: cost, Service: Service{Kind: Constant},
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}}),
			Fields:   []workload.Generator{workload.NewUniform(n)},
			Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
			Lock:     lock,
		}},
	}
}

// TestLockMG1 holds one key's lock to the M/G/1 queue: Poisson writes at lambda = 1,400/s
// to a single key whose lock is held for S (mean 0.5 ms, so rho = 0.7) make the key an
// M/G/1 queue whose mean wait is Pollaczek-Khinchine's Wq = lambda E[S^2] / (2 (1 - rho)):
// 0.583 ms for a constant hold (E[S^2] = S^2), 1.167 ms for an exponential one (2 S^2) and
// 1.896 ms for a lognormal with cv 1.5 (E[S^2] = S^2 (1 + cv^2)). The CPU work after the
// lock (0.1 ms on 4 cores) does not touch the lock's queue. Seed 1, 200 s: about 280,000
// writes each. Tolerance 3% (constant, exponential) and 8% (lognormal, whose heavy tail
// makes the mean wait converge slowest); over seeds 1 to 5 the largest errors were 0.8%,
// 0.5% and 4.1%.
func TestLockMG1(t *testing.T) {
	const lambda, s = 1400.0, 0.5e-3
	rho := lambda * s
	var theory, sim []string // the README's accuracy table
	for _, c := range []struct {
		name string
		lock Delay
		es2  float64 // E[S^2] / S^2
		tol  float64
	}{
		{"constant", Delay{Kind: Constant, Mean: 500 * Microsecond}, 1, 0.03},
		{"exponential", Delay{Kind: Exponential, Mean: 500 * Microsecond}, 2, 0.03},
		{"lognormal cv 1.5", Delay{Kind: Lognormal, Mean: 500 * Microsecond, CV: 1.5}, 1 + 1.5*1.5, 0.08},
	} {
		r := Run(lockModel(1, 200*Second, 4, lambda, 1, c.lock, 100*Microsecond, 0))
		st := &r.Streams[0]
		if st.LockWaits != st.Offered || st.LockWaits < 250_000 {
			t.Fatalf("%s: %d lock waits recorded for %d writes, want one each, over 250,000", c.name, st.LockWaits, st.Offered)
		}
		got := st.LockWaitSum / float64(st.LockWaits) / 1e6 // ms
		want := lambda * c.es2 * s * s / (2 * (1 - rho)) * 1e3
		theory, sim = append(theory, fmt.Sprintf("%.3f", want)), append(sim, fmt.Sprintf("%.3f", got))
		if rel := math.Abs(got-want) / want; rel > c.tol {
			t.Errorf("%s: mean lock wait %.4f ms, Pollaczek-Khinchine %.4f ms: off by %.1f%%, tolerance %.0f%%", c.name, got, want, rel*100, c.tol*100)
		} else {
			t.Logf("%s: mean lock wait %.4f ms, Pollaczek-Khinchine %.4f ms (off by %.2f%%)", c.name, got, want, rel*100)
		}
		// The holds granted: one per write (no timeout), and their mean is the hold's
		// mean, 0.5 ms (within 2%: 280,000 draws of a cv of at most 1.5 give a standard
		// error under 0.3%).
		if hm := st.LockHoldSum / float64(st.LockHolds) / 1e6; st.LockHolds != st.LockWaits || math.Abs(hm-0.5)/0.5 > 0.02 {
			t.Errorf("%s: %d holds with a mean of %.4f ms for %d waits, want one each and 0.5 ms", c.name, st.LockHolds, hm, st.LockWaits)
		}
		// The writes that found the lock held: a Poisson arrival sees the server busy
		// with probability rho (PASTA). 2% absolute.
		if f := float64(st.LockWaited) / float64(st.LockWaits); math.Abs(f-rho) > 0.02 {
			t.Errorf("%s: %.3f of the writes found the lock held, want rho = %.2f", c.name, f, rho)
		}
		if p99 := float64(st.LockWait.ValueAtQuantile(99)) / 1000; p99 <= got || p99 > st.LockWaitMax.Millis() {
			t.Errorf("%s: p99 lock wait %.3f ms, want above the mean %.3f and at most the max %.3f", c.name, p99, got, st.LockWaitMax.Millis())
		}
	}
	docmark.Figures(t, "../README.md", "mg1", map[string]string{"mg1.theory": strings.Join(theory, ", "), "mg1.sim": strings.Join(sim, ", ")})
}

// TestLockCapsKey: a 0.5 ms constant lock caps one key at 1/0.5 ms = 2,000 writes/s,
// whatever the cores. 3,000 writes/s (Poisson, seed 2) to one key for 4 s: with 1 core or
// 16 (CPU 0.2 ms a write, so CPU alone would allow 5,000/s and 80,000/s), exactly 2,000
// writes start their CPU work in each full second once the backlog has formed (the
// lock is never idle then); with the key spread over 4 salt buckets, each bucket's lock
// takes 750/s and every write is served as it comes. With a 20 ms lock timeout, the
// writes that would wait longer fail as lock failures, and the key still serves 2,000/s.
func TestLockCapsKey(t *testing.T) {
	lock := Delay{Kind: Constant, Mean: 500 * Microsecond}
	served := func(r *Result, w int) int64 { return r.ShardOps[w] } // one shard
	for _, cores := range []int{1, 16} {
		r := Run(lockModel(2, 4*Second, cores, 3000, 1, lock, 200*Microsecond, 0))
		for w := 1; w < 4; w++ {
			if n := served(r, w); n != 2000 {
				t.Errorf("%d cores: %d writes served in second %d, want the lock's cap, 2,000", cores, n, w)
			}
		}
	}
	r := Run(lockModel(2, 4*Second, 1, 3000, 1, lock, 200*Microsecond, 4))
	for w := 1; w < 4; w++ {
		if n := served(r, w); n < 2800 {
			t.Errorf("salt 4: %d writes served in second %d, want all of about 3,000", n, w)
		}
	}
	if st := &r.Streams[0]; st.LockWaitSum/float64(st.LockWaits) > float64(Millisecond) {
		t.Errorf("salt 4: mean lock wait %v, want under 1 ms at 750/s a bucket", Time(st.LockWaitSum/float64(st.LockWaits)))
	}

	m := lockModel(2, 4*Second, 1, 3000, 1, lock, 200*Microsecond, 0)
	m.Streams[0].LockTimeout = 20 * Millisecond
	r = Run(m)
	st := &r.Streams[0]
	if st.LockTimedOut == 0 || st.Completed+st.LockTimedOut != st.Offered {
		t.Errorf("lock timeout: %d completed + %d lock failures of %d offered, want some failures and every write accounted for", st.Completed, st.LockTimedOut, st.Offered)
	}
	if sh := r.Shards[0].LockFailed; sh != st.LockTimedOut {
		t.Errorf("lock timeout: the shard counts %d lock failures, its one stream %d", sh, st.LockTimedOut)
	}
	if st.LockWaitMax > 20*Millisecond {
		t.Errorf("lock timeout 20ms: a write waited %v", st.LockWaitMax)
	}
	for w := 1; w < 4; w++ {
		if n := served(r, w); n < 1990 || n > 2000 {
			t.Errorf("lock timeout: %d writes served in second %d, want about the cap, 2,000", n, w)
		}
	}
	if len(st.HotLocks) == 0 || st.HotLocks[0].Count != st.LockWaited {
		t.Errorf("hot locks %+v, want the one key with all %d contended writes", st.HotLocks, st.LockWaited)
	}
}

// TestClosedLoopMVA holds closed-loop clients to exact mean-value analysis of the
// machine-repairman model: N clients, think time Z = 8 ms (exponential), one queue with
// one core and exponential service S = 1 ms, no network. MVA, exact for this product-form
// network: R(n) = S (1 + Q(n-1)), X(n) = n / (Z + R(n)), Q(n) = X(n) R(n), from Q(0) = 0.
// N = 1: X = 111.1/s, R = 1 ms; N = 8: X = 764.4/s, R = 2.465 ms; N = 64: X = 1,000/s
// (to 20 digits), R = 56 ms. Seed 1, 5 s of warmup then 60 s: 6,700 to 60,000 requests.
// Tolerance 3% on both; over seeds 1 to 5 the largest errors were 1.2% (X) and 1.6% (R),
// both at N = 1, the smallest sample.
func TestClosedLoopMVA(t *testing.T) {
	const S, Z = 1e-3, 8e-3
	figs := map[string][]string{}
	for _, n := range []int{1, 8, 64} {
		q, x, rt := 0.0, 0.0, 0.0
		for k := 1; k <= n; k++ {
			rt = S * (1 + q)
			x = float64(k) / (Z + rt)
			q = x * rt
		}
		d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
		m := &Model{
			Seed: 1, Duration: 65 * Second, Warmup: 5 * Second, Window: 65 * Second,
			Nodes: []Node{{Cores: 1}}, ShardNode: []int{0},
			Streams: []Stream{{
				Name: "c", Op: Write, Cost: Millisecond,
				Fields:  []workload.Generator{workload.NewUniform(1000)},
				Planner: keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
				Clients: n, Think: Delay{Kind: Exponential, Mean: 8 * Millisecond},
			}},
		}
		r := Run(m)
		st := &r.Streams[0]
		gotX := float64(st.Completed) / 60
		gotR := st.LatencySum / float64(st.Completed) / 1e9
		for k, v := range map[string]string{"mva.x": fmt.Sprintf("%.1f", x), "mva.sim_x": fmt.Sprintf("%.1f", gotX),
			"mva.r": fmt.Sprintf("%.3f", rt*1e3), "mva.sim_r": fmt.Sprintf("%.3f", gotR*1e3)} {
			figs[k] = append(figs[k], v)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"throughput", gotX, x}, {"mean response", gotR, rt}} {
			if rel := math.Abs(c.got-c.want) / c.want; rel > 0.03 {
				t.Errorf("N = %d: %s %.5g, MVA %.5g: off by %.1f%%, tolerance 3%%", n, c.what, c.got, c.want, rel*100)
			} else {
				t.Logf("N = %d: %s %.5g, MVA %.5g (off by %.2f%%)", n, c.what, c.got, c.want, rel*100)
			}
		}
	}
	joined := map[string]string{}
	for k, v := range figs {
		joined[k] = strings.Join(v, ", ")
	}
	docmark.Figures(t, "../README.md", "mva", joined)
}

// TestRowServiceClamped: rows x row cost past MaxRowService is clamped to it instead of
// wrapping to a negative time (10^10 rows of 1 s passed 2^63 ns).
func TestRowServiceClamped(t *testing.T) {
	if got := rowService(10_000_000_000, Second); got != MaxRowService {
		t.Errorf("10^10 rows of 1s: %v, want %v", got, MaxRowService)
	}
	if got := rowService(1000, Millisecond); got != Second {
		t.Errorf("1000 rows of 1ms: %v", got)
	}
	if got := rowService(5, 0); got != 0 {
		t.Errorf("rows of no cost: %v", got)
	}
}

// BenchmarkLock runs lockModel's writes at 1,000/s to one key whose lock is held for an
// exponential 0.5 ms (rho = 0.5 at its lock) for b.N writes: one op is one write, through
// its row lock to its service.
func BenchmarkLock(b *testing.B) {
	const rate = 1_000
	m := lockModel(1, Second+Time(float64(b.N)/rate*float64(Second)), 1, rate, 1, Delay{Kind: Exponential, Mean: 500 * Microsecond}, 50*Microsecond, 0)
	b.ReportAllocs()
	b.ResetTimer()
	Run(m)
}
