package capacity

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// TestCapacityMM1Settled is the M/M/1 case: mu = 1000/s, 700/s at multiple 1,
// seeds 11, 12, 13, --duration 30s (a 10 s warmup), p99 < 300 ms. The sojourn time of
// M/M/1 is exponential with rate mu - lambda, so p99 = ln(100)/(mu - lambda) and the
// largest rate is lambda = mu - ln(100)/0.3 = 984.65/s: a multiple of 1.4066. The search
// lengthens the runs near the answer (the node 98.5% busy settles in about 17 s) to 20
// relaxation times after a warmup of 3; with 30 s runs it answered 1.4219. Tolerance: 1%
// of the multiple (the search's resolution); the seeds' 95% interval, at least the
// search's brackets, must cover 1.4066. About 20 runs, 9,500 simulated seconds (9.5
// million requests), 4 to 8 s on 2 cores.
func TestCapacityMM1Settled(t *testing.T) {
	if testing.Short() {
		t.Skip("about 9.5 million simulated requests")
	}
	slo, err := sweep.ParseSLO("requests:p99<300ms")
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	res, err := Run(Config{
		Config: sweep.Config{Scenario: "../../testdata/queueing/mm1.toml", Options: scenarios.Options{Sets: []string{`duration="30s"`}},
			Replications: 3, Parallel: 2},
		SLOs: []sweep.SLO{slo}, MaxErrors: 0.001,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := res[0]
	want := (1000 - math.Log(100)/0.3) / 700
	t.Logf("answer %v, per replication %v, interval [%.4f, %.4f], %d runs, %.0f s simulated, %v", c.Multiple, c.PerReplication, c.Spread.Lo, c.Spread.Hi, c.Runs, c.SimSeconds, time.Since(began))
	if c.Unsettled || math.Abs(c.Multiple-want)/want > 0.01 {
		t.Errorf("multiple %v (unsettled %v), want within 1%% of %.4f", c.Multiple, c.Unsettled, want)
	}
	if !(c.Spread.Lo <= want && want <= c.Spread.Hi) {
		t.Errorf("interval [%.4f, %.4f] does not cover %.4f", c.Spread.Lo, c.Spread.Hi, want)
	}
	// Every run the answer rests on measured 20 relaxation times of its node after its
	// warmup.
	cfg := Config{}
	if c.At == nil || c.At.Unsettled != 0 || c.At.Measured < cfg.lengths(0).Relaxed()*c.At.Settle {
		t.Errorf("at the answer: %+v; want settled runs", c.At)
	}
}

// TestCapacityNeverUnstable: the same M/M/1 at p99 < 1 s, whose answer is 995.4/s
// (lambda = mu - ln(100)/1), 99.54% of the node: its queue settles in about 190 s, so
// settled runs there take about 5,000 s. With --budget 600s the search cannot settle runs
// above about 98% busy; no replication may answer at or above 1000/700 = 1.4286 (the node
// offered all its core), none may run there, and the answer is marked unsettled, not
// printed as one. Seeds 11, 12, 13; --duration 30s; about 25 runs of at most 600 s.
func TestCapacityNeverUnstable(t *testing.T) {
	if testing.Short() {
		t.Skip("about 7 million simulated requests")
	}
	slo, err := sweep.ParseSLO("requests:p99<1s")
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	res, err := Run(Config{
		Config: sweep.Config{Scenario: "../../testdata/queueing/mm1.toml", Options: scenarios.Options{Sets: []string{`duration="30s"`}},
			Replications: 3, Parallel: 2},
		SLOs: []sweep.SLO{slo}, MaxErrors: 0.001, Budget: 600 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := res[0]
	unstable := 1000.0 / 700
	t.Logf("answer %v (unsettled %v, offered at %v), per replication %v, %d runs, %.0f s simulated, %v", c.Multiple, c.Unsettled, c.OfferedAt, c.PerReplication, c.Runs, c.SimSeconds, time.Since(began))
	for _, m := range append(c.PerReplication, c.Multiple, c.MeanAnswer, c.AllAnswer) {
		if m >= unstable {
			t.Errorf("an answer %v at or above %.4f: an unstable queue called passing", m, unstable)
		}
	}
	for _, sm := range c.Samples {
		if sm.Multiple >= unstable {
			t.Errorf("a run at %v, where the node is offered %.1f%% of its core", sm.Multiple, 70*sm.Multiple)
		}
	}
	if math.Abs(c.OfferedAt-unstable) > 1e-3 {
		t.Errorf("offered at %v, want %v (700 m / 1000 = 1)", c.OfferedAt, unstable)
	}
	if !c.Unsettled {
		t.Errorf("the answer %v is not marked unsettled; the budget cannot settle runs near 995/s", c.Multiple)
	}
	cr := &Report{Scenario: "mm1", Config: Config{SLOs: []sweep.SLO{slo}, Budget: 600 * time.Second, Config: sweep.Config{Replications: 3}}, Rows: res}
	var b strings.Builder
	cr.Text(&b)
	if out := b.String(); !strings.Contains(out, "base     unsettled") || !strings.Contains(out, "ANSWER: none of those tried carries") ||
		!strings.Contains(out, "raise --budget") {
		t.Errorf("the text does not mark the answer unsettled:\n%s", out)
	}
}

// TestCapacityErlangC: M/M/4 (testdata/queueing/mmc.toml: mu = 1000/s per core, 3200/s at
// multiple 1), p99 < 10 ms. The sojourn time T = W + S, S ~ Exp(mu), W = 0 with
// probability 1 - C and Exp(theta = c mu - lambda) with probability C (Erlang C):
// P(T > t) = (1 - C) e^(-mu t) + C (theta e^(-mu t) - mu e^(-theta t)) / (theta - mu). The
// answer is the lambda where P(T > 10 ms) = 0.01, found by bisection (about 3,501/s,
// 87.5% busy). One replication (seed 12), 150 s runs (about 520,000 requests each; the
// queue settles in about 0.1 s, so no run is lengthened), search tolerance 0.5%;
// tolerance 1% of the multiple (60 s runs answered 1.1% low: p99 moves 7% for 1% of
// load there).
func TestCapacityErlangC(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 million simulated requests")
	}
	slo, err := sweep.ParseSLO("requests:p99<10ms")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Config{
		Config: sweep.Config{Scenario: "../../testdata/queueing/mmc.toml", Options: scenarios.Options{Sets: []string{`duration="150s"`}},
			Replications: 1, Parallel: 2},
		SLOs: []sweep.SLO{slo}, MaxErrors: 0.001, Tolerance: 0.005,
	})
	if err != nil {
		t.Fatal(err)
	}
	const c, mu, L = 4, 1000.0, 0.010
	tail := func(lambda float64) float64 {
		a := lambda / mu
		// Erlang C: P(wait) for c servers at offered load a.
		sum, term := 0.0, 1.0
		for k := 0; k < c; k++ {
			if k > 0 {
				term *= a / float64(k)
			}
			sum += term
		}
		last := term * a / c * float64(c) / (float64(c) - a) // a^c/c! * c/(c-a)
		C := last / (sum + last)
		theta := c*mu - lambda
		return (1-C)*math.Exp(-mu*L) + C*(theta*math.Exp(-mu*L)-mu*math.Exp(-theta*L))/(theta-mu)
	}
	lo, hi := 3200.0, 3999.0
	for hi-lo > 1e-6 {
		if m := (lo + hi) / 2; tail(m) < 0.01 {
			lo = m
		} else {
			hi = m
		}
	}
	want := lo / 3200
	t.Logf("answer %v (%.1f/s), Erlang C %.5f (%.1f/s), %d runs", res[0].Multiple, 3200*res[0].Multiple, want, lo, res[0].Runs)
	if math.Abs(res[0].Multiple-want)/want > 0.01 {
		t.Errorf("multiple %v, want within 1%% of Erlang C's %.5f", res[0].Multiple, want)
	}
}

// TestClosingAnswer: the ANSWER line on constructed rows of a node-count search: the
// smallest count whose answer is at least 1 (3 nodes at 1.2 over 2 nodes at 0.9296875),
// its headroom rounded down (20%), the multiple exactly as run, and an unsettled row is
// never the answer.
func TestClosingAnswer(t *testing.T) {
	slo, err := sweep.ParseSLO("w:p99<50ms")
	if err != nil {
		t.Fatal(err)
	}
	row := func(nodes string, m float64, unsettled bool) Answer {
		return Answer{Point: sweep.Point{Values: []string{nodes}}, Variant: "base", Multiple: m, AllAnswer: m, Failed: m * 1.01, Unsettled: unsettled,
			Plan: "10,000 w/s", Spread: replicas.Estimated([]float64{m})}
	}
	cr := &Report{Scenario: "s", Config: Config{SLOs: []sweep.SLO{slo}, Config: sweep.Config{Axes: []sweep.Axis{{Key: "cluster.nodes", Values: []string{"4", "2", "3"}}}}},
		Rows: []Answer{row("4", 1.5, true), row("2", 0.9296875, false), row("3", 1.2000000000000002, false)}}
	got := cr.closing()
	want := "ANSWER: 3 nodes carry the plan (10,000 w/s) at w:p99<50ms in every replication with 20% headroom (1.2000000000000002x); 2 nodes reach 0.9296875x. 4 nodes are unsettled"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("closing %q, want it to start %q", got, want)
	}
	cr.Rows = []Answer{row("2", 0.5, false), row("3", 1.4, true)}
	if got := cr.closing(); len(got) != 1 || !strings.Contains(got[0], "none of those tried carries") || !strings.Contains(got[0], "3 nodes are unsettled past 1.4x") {
		t.Errorf("closing %q: an unsettled row is no answer", got)
	}
}

// TestCapacityPrecision: --precision adds replications one at a time. On the M/M/1 node
// at p99 < 46.05 ms (answer 1.2857, 90% busy), 30 s runs, seeds from 11, starting from 2
// replications with a precision of 0.1% (tighter than the 1% search can give unless the
// seeds' brackets agree) and at most 5: the search stops at 5 or as soon as precise()
// holds, and the replications it reports are the ones it searched, the check at the
// next seed.
func TestCapacityPrecision(t *testing.T) {
	slo, err := sweep.ParseSLO("requests:p99<46.05ms")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Config{
		Config: sweep.Config{Scenario: "../../testdata/queueing/mm1.toml", Options: scenarios.Options{Sets: []string{`duration="30s"`}},
			Replications: 2, Parallel: 2},
		SLOs: []sweep.SLO{slo}, MaxErrors: 0.001, Precision: 0.001, MaxReplications: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := res[0]
	n := len(c.PerReplication)
	var per []found
	for i, m := range c.PerReplication {
		per = append(per, found{lo: m, hi: c.PerFailed[i]})
	}
	t.Logf("%d replications: %v", n, c.PerReplication)
	if n < 2 || n > 5 {
		t.Fatalf("%d replications, want 2 to 5", n)
	}
	if n < 5 && !precise(per, 0.001) {
		t.Errorf("stopped at %d replications %v before the answers were precise", n, c.PerReplication)
	}
	if c.At == nil || len(c.At.Seeds) != n || c.Check == nil || c.Check.Seeds[0] != 11+uint64(n) {
		t.Errorf("the answer's probe or check does not use the %d replications searched: %+v", n, c.Check)
	}
	if n == 5 && precise(per[:4], 0.001) {
		t.Errorf("a fifth replication was added after four were precise: %v", c.PerReplication)
	}
}
