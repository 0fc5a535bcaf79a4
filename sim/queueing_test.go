package sim_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// These tests hold the engine to queueing theory. Each runs a scenario file from
// testdata/queueing through the same loader as users' files, with the seed stated in the
// file, about one million requests, and compares with the closed form named beside it.

func runScenario(t *testing.T, path string, sets ...string) *sim.Result {
	t.Helper()
	sc, err := scenarios.Load(path, scenarios.Options{Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Variants) != 1 {
		t.Fatalf("%s: %d variants, want 1", path, len(sc.Variants))
	}
	r := sim.Run(sc.Variants[0].Model())
	if n := r.Streams[0].Completed; n < 1_000_000 {
		t.Fatalf("%s: only %d requests completed; the test needs at least 1e6", path, n)
	}
	return r
}

// ms3 writes a latency in ms with three decimals, as the README's accuracy table does.
func ms3(x float64) string { return fmt.Sprintf("%.3f", x) }

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if rel := math.Abs(got-want) / want; rel > tol {
		t.Errorf("%s = %.4f, want %.4f within %.0f%% (off by %.2f%%)", what, got, want, tol*100, rel*100)
	} else {
		t.Logf("%s = %.4f, theory %.4f (off by %.2f%%)", what, got, want, rel*100)
	}
}

// M/M/1 with lambda = 700/s, mu = 1000/s. The sojourn time is exponential with rate
// mu - lambda: mean 1/(mu - lambda), p99 ln(100)/(mu - lambda). Tolerance 3%.
func TestMM1(t *testing.T) {
	const lambda, mu = 700.0, 1000.0
	r := runScenario(t, "../testdata/queueing/mm1.toml")
	s := &r.Streams[0]
	within(t, "M/M/1 mean (ms)", s.MeanMillis(), 1000/(mu-lambda), 0.03)
	within(t, "M/M/1 p99 (ms)", s.QuantileMillis(0.99), 1000*math.Log(100)/(mu-lambda), 0.03)
	docmark.Figures(t, "../README.md", "mm1", map[string]string{
		"mm1.mean": ms3(1000 / (mu - lambda)), "mm1.p99": ms3(1000 * math.Log(100) / (mu - lambda)),
		"mm1.sim_mean": ms3(s.MeanMillis()), "mm1.sim_p99": ms3(s.QuantileMillis(0.99))})
	// The utilization law: the server is busy lambda/mu of the time.
	within(t, "M/M/1 utilization", r.NodeLoad(0), lambda/mu, 0.01)
}

// erlangC is the probability that an arrival waits in an M/M/c queue with offered load
// a = lambda/mu (Erlang's C formula), computed through the numerically stable Erlang B
// recursion B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)), C = c B / (c - a (1 - B)).
func erlangC(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return float64(c) * b / (float64(c) - a*(1-b))
}

// M/M/c with c = 4, lambda = 3200/s, mu = 1000/s per core. The wait is 0 with probability
// 1 - C and exponential with rate theta = c mu - lambda otherwise (P(Wq > t) = C e^{-theta t});
// the sojourn adds an independent Exp(mu) service, so
//
//	E[T] = C/theta + 1/mu
//	P(T > t) = (1 - C) e^{-mu t} + C (theta e^{-mu t} - mu e^{-theta t}) / (theta - mu)
//
// and p99 solves P(T > t) = 0.01 (bisection). Tolerance 3%.
func TestMMc(t *testing.T) {
	const c, lambda, mu = 4, 3200.0, 1000.0
	theta := c*mu - lambda
	C := erlangC(c, lambda/mu)
	tail := func(x float64) float64 {
		return (1-C)*math.Exp(-mu*x) + C*(theta*math.Exp(-mu*x)-mu*math.Exp(-theta*x))/(theta-mu)
	}
	lo, hi := 0.0, 1.0
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if tail(mid) > 0.01 {
			lo = mid
		} else {
			hi = mid
		}
	}
	r := runScenario(t, "../testdata/queueing/mmc.toml")
	s := &r.Streams[0]
	within(t, "M/M/4 mean (ms)", s.MeanMillis(), 1000*(C/theta+1/mu), 0.03)
	within(t, "M/M/4 p99 (ms)", s.QuantileMillis(0.99), 1000*lo, 0.03)
	docmark.Figures(t, "../README.md", "mmc", map[string]string{
		"mmc.mean": ms3(1000 * (C/theta + 1/mu)), "mmc.p99": ms3(1000 * lo),
		"mmc.sim_mean": ms3(s.MeanMillis()), "mmc.sim_p99": ms3(s.QuantileMillis(0.99))})
}

// M/D/1 with lambda = 700/s and a constant 1 ms service. Pollaczek-Khinchine:
// E[T] = 1/mu + lambda E[S^2] / (2 (1 - rho)) = 1/mu + rho / (2 mu (1 - rho)). Tolerance 3%.
func TestMD1(t *testing.T) {
	const lambda, mu = 700.0, 1000.0
	rho := lambda / mu
	r := runScenario(t, "../testdata/queueing/md1.toml")
	within(t, "M/D/1 mean (ms)", r.Streams[0].MeanMillis(), 1000*(1/mu+rho/(2*mu*(1-rho))), 0.03)
	docmark.Figures(t, "../README.md", "md1", map[string]string{
		"md1.mean": ms3(1000 * (1/mu + rho/(2*mu*(1-rho)))), "md1.sim_mean": ms3(r.Streams[0].MeanMillis())})
}

// Fork-join over K single-core M/M/1 shards, lambda = 500/s, mu = 1000/s (rho = 0.5).
// Nelson and Tantawi ("Approximate analysis of fork/join synchronization in parallel
// queues", IEEE Trans. Computers 37(6), 1988): with R = 1/(mu - lambda) the M/M/1 mean,
// R_2 = (12 - rho)/8 R exactly, and for K >= 2
//
//	R_K ~ [H_K/H_2 + (4/11)(1 - H_K/H_2) rho] R_2,   H_K the K-th harmonic number.
//
// The approximation is within a few percent for K <= 32; tolerance 5%.
func TestForkJoin(t *testing.T) {
	const lambda, mu = 500.0, 1000.0
	rho := lambda / mu
	R := 1 / (mu - lambda)
	R2 := (12 - rho) / 8 * R
	harmonic := func(k int) float64 {
		h := 0.0
		for i := 1; i <= k; i++ {
			h += 1 / float64(i)
		}
		return h
	}
	var theory, sim []string
	defer func() {
		docmark.Figures(t, "../README.md", "forkjoin", map[string]string{
			"forkjoin.theory": strings.Join(theory, ", "), "forkjoin.sim": strings.Join(sim, ", ")})
	}()
	for _, k := range []int{2, 4, 8} {
		t.Run(fmt.Sprintf("K=%d", k), func(t *testing.T) {
			r := runScenario(t, "../testdata/queueing/forkjoin.toml",
				fmt.Sprintf("keyspace.shards=%d", k), fmt.Sprintf("cluster.nodes=%d", k))
			s := &r.Streams[0]
			if s.MaxFanout != k {
				t.Fatalf("fan-out %d, want %d", s.MaxFanout, k)
			}
			ratio := harmonic(k) / harmonic(2)
			want := (ratio + 4.0/11*(1-ratio)*rho) * R2
			within(t, fmt.Sprintf("fork-join K=%d mean (ms)", k), s.MeanMillis(), 1000*want, 0.05)
			theory, sim = append(theory, ms3(1000*want)), append(sim, ms3(s.MeanMillis()))
		})
	}
}

// M/G/1 with Erlang-25 service (testdata/queueing/erlang25.toml): each request is one
// subrequest over 25 partitions on one single-core node, its service the sum of 25
// exponential draws of 40 us, drawn as one Gamma(25) variate. Pollaczek-Khinchine: mean
// sojourn = E[S] + lambda E[S^2] / (2 (1 - rho)), with E[S] = kc = 1 ms and
// E[S^2] = k(k+1)c^2 = 1.04 ms^2, lambda = 500/s, rho = 0.5: 1.52 ms. Tolerance 2% on the
// mean (its standard error over about one million requests is near 0.1%) and 1% on the
// utilization law.
func TestErlang25Scan(t *testing.T) {
	const lambda, k, c = 500.0, 25.0, 40e-3 // c in ms
	es, es2 := k*c, k*(k+1)*c*c
	rho := lambda * es / 1000
	r := runScenario(t, "../testdata/queueing/erlang25.toml")
	s := &r.Streams[0]
	if got := float64(s.Partitions) / float64(s.Offered); got != k {
		t.Fatalf("%.2f partitions per scan, want %v", got, k)
	}
	within(t, "M/Erlang-25/1 mean (ms)", s.MeanMillis(), es+lambda/1000*es2/(2*(1-rho)), 0.02)
	within(t, "M/Erlang-25/1 utilization", r.NodeLoad(0), rho, 0.01)
}
