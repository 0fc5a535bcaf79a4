package metrics_test

import (
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/limits"
	_ "github.com/shardsim/shardsim/mechanisms/locks" // registers its failure cause
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// These cases run partition limits (mechanisms/limits), whose alert registers with
// figures/diagnose, which reads metrics: they are an external test, so that the test
// binary does not import metrics twice.

// troubledPoint is a stream of Poisson requests at rate a second, each of cost, to
// partitions drawn uniformly from 2^20, all on shard 0.
func troubledPoint(name string, op sim.Op, rate float64, cost sim.Time) sim.Stream {
	return sim.Stream{
		Name: name, Op: op, Cost: cost,
		Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}}),
		Fields:   []workload.Generator{workload.NewUniform(1 << 20)},
		Planner:  keyspace.NewPointPlanner(&keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}, keyspace.NewModulo(1), op == sim.Read),
	}
}

// troubled is a one-core node (seed 5, 20 s, 2 s warmup) whose streams each fail in their
// own way: "put" offers 2,000 writes/s of 0.6 ms (1.2 times the core) into a queue of at
// most 3 behind a partition limit of 1,500 writes/s, so it is rejected and throttled; "slow"
// gives up after 1 ms on reads that cost 50 ms of constant service, so each of them times
// out or is rejected; "capped" issues 100 reads/s through a client limit of 10/s, so about 90% are
// limited; "idle" has a rate of 0 and issues nothing.
func troubled() *sim.Model {
	slow := troubledPoint("slow", sim.Read, 5, 50*sim.Millisecond)
	slow.Service = sim.Service{Kind: sim.Constant}
	slow.Client = sim.Client{Timeout: sim.Millisecond}
	capped := troubledPoint("capped", sim.Read, 100, 100*sim.Microsecond)
	capped.Client = sim.Client{Limit: &sim.Limit{Rate: 10, Burst: 1}}
	return &sim.Model{
		Seed: 5, Duration: 20 * sim.Second, Warmup: 2 * sim.Second, Window: sim.Second, Network: 200 * sim.Microsecond,
		Nodes: []sim.Node{{Cores: 1, QueueLimit: 3}}, ShardNode: []int{0},
		Streams:    []sim.Stream{troubledPoint("put", sim.Write, 2000, 600*sim.Microsecond), slow, capped, troubledPoint("idle", sim.Read, 0, sim.Millisecond)},
		Mechanisms: []sim.Setting{limits.Limits{Settings: scenario.PartitionLimits{WriteUnits: 1500, ReadUnits: 1e9, Burst: sim.Second}}},
	}
}

var (
	troubledOnce sync.Once
	troubledRes  *sim.Result
	troubledRun  *metrics.Run
)

// troubledRun runs troubled once for every test that reads it.
func troubledResult(t *testing.T) (*sim.Result, *metrics.Run) {
	t.Helper()
	troubledOnce.Do(func() {
		troubledRes = sim.Run(troubled())
		troubledRun = metrics.Of(troubledRes)
	})
	if troubledRes.Saturated || troubledRes.Partial {
		t.Fatalf("the troubled model stopped early: saturated %v, partial %v", troubledRes.Saturated, troubledRes.Partial)
	}
	return troubledRes, troubledRun
}

func TestErrorRateCountsEveryCause(t *testing.T) {
	res, run := troubledResult(t)
	var want metrics.Failures
	var offered int64
	for i := range res.Streams {
		st, s := &res.Streams[i], &run.Streams[i]
		sum := st.Rejected + st.Failed[limits.Throttled] + st.TimedOut + st.Limited
		if s.Failed != sum || s.Failures[metrics.Rejected] != st.Rejected || s.Failures[metrics.Throttled] != st.Failed[limits.Throttled] ||
			s.Failures[metrics.TimedOut] != st.TimedOut || s.Failures[metrics.Limited] != st.Limited || s.Failures[metrics.Lock] != 0 {
			t.Errorf("%s: failures %v (total %d), the engine counted %d rejected, %d throttled, %d timed out, %d limited",
				s.Name, s.Failures, s.Failed, st.Rejected, st.Failed[limits.Throttled], st.TimedOut, st.Limited)
		}
		// Every request issued after the warmup has exactly one outcome.
		if s.Completed+s.Failed != s.Offered {
			t.Errorf("%s: %d completed + %d failed != %d offered", s.Name, s.Completed, s.Failed, s.Offered)
		}
		if s.Offered > 0 && s.ErrorRate != float64(sum)/float64(s.Offered) {
			t.Errorf("%s: error rate %v, want %d/%d", s.Name, s.ErrorRate, sum, s.Offered)
		}
		for c := range want {
			want[c] += s.Failures[c]
		}
		offered += s.Offered
	}
	for _, c := range []metrics.Cause{metrics.Rejected, metrics.Throttled, metrics.TimedOut, metrics.Limited} {
		if want[c] == 0 {
			t.Errorf("the model produced no %s request; the test needs every cause", c)
		}
	}
	if run.Failures != want || run.Offered != offered || run.ErrorRate != float64(want.Total())/float64(offered) {
		t.Errorf("run: failures %v of %d offered, error rate %v; want %v of %d", run.Failures, run.Offered, run.ErrorRate, want, offered)
	}
	// slow's reads share put's full queue: those not rejected time out.
	if s := run.Stream("slow"); s.ErrorRate != 1 || s.Completed != 0 || s.Failures[metrics.TimedOut] == 0 || s.Offered < 50 {
		t.Errorf("slow: error rate %v, %d completed, %d timed out of %d; want every request failed, some timed out", s.ErrorRate, s.Completed, s.Failures[metrics.TimedOut], s.Offered)
	}
	if s := run.Stream("capped"); math.Abs(s.ErrorRate-0.9) > 0.05 {
		// 100/s offered against 10 tokens/s: 1 - 10/100 are limited; over about 1,800
		// requests the share is within 0.05 of 0.9.
		t.Errorf("capped: error rate %v, want 0.9 within 0.05", s.ErrorRate)
	}
	if s := run.Stream("idle"); s.Offered != 0 || s.ErrorRate != 0 {
		t.Errorf("idle: %d offered, error rate %v; want 0 and 0", s.Offered, s.ErrorRate)
	}
}

// TestRegisteredCausesCounted: every failure cause a mechanism registers with sim
// (sim.RegisterCause: partition limits', row locks') is one of the figures' causes, under
// its name, so that a stream's and a window's failures count it.
func TestRegisteredCausesCounted(t *testing.T) {
	r := &sim.Result{Streams: []sim.StreamResult{{Win: make([]sim.WindowLatency, 1)}}}
	st := &r.Streams[0]
	var n int64
	for c := range sim.Cause(sim.MaxCauses) {
		name := c.String()
		if name == "" {
			continue
		}
		n++
		st.Failed[c], st.Win[0].Failed[c] = 1, 1
		found := false
		for _, f := range metrics.Causes {
			found = found || f.String() == name
		}
		if !found {
			t.Errorf("cause %d, %q, is none of the figures' causes %v", c, name, metrics.Causes)
		}
	}
	if n < 2 {
		t.Errorf("%d failure causes registered, want a partition limit's and a row lock's", n)
	}
	w := metrics.WindowFailures(&st.Win[0])
	if s := metrics.StreamOf(r, 0); s.Failed != n || w.Total() != n {
		t.Errorf("%d causes registered, each failing one request: the stream's figures count %d failed, the window's %d", n, s.Failed, w.Total())
	}
}

func TestLatencyNilWithoutCompletions(t *testing.T) {
	_, run := troubledResult(t)
	for _, name := range []string{"slow", "idle"} {
		s := run.Stream(name)
		l := s.Latency
		if s.Completed != 0 {
			t.Fatalf("%s completed %d requests; the test needs none", name, s.Completed)
		}
		for i, p := range []*float64{l.Mean, l.P50, l.P90, l.P95, l.P99, l.P999, l.Max} {
			if p != nil {
				t.Errorf("%s: statistic %d is %v, want nil (nothing completed)", name, i, *p)
			}
		}
	}
	if l := run.Stream("put").Latency; l.P99 == nil || l.Mean == nil || l.Max == nil {
		t.Errorf("put completed requests but has latency %+v", l)
	}
}

func TestJudgeEmptyStream(t *testing.T) {
	_, run := troubledResult(t)
	for _, text := range []string{"slow:p99<1h", "idle:mean<1h", "slow:max<1h"} {
		slo, err := metrics.ParseSLO(text)
		if err != nil {
			t.Fatal(err)
		}
		v := metrics.Judge(slo, []*metrics.Run{run})
		if v.OK || v.Value != nil || !math.IsInf(v.Severity, 1) || !(strings.Contains(v.Reason, "no request") || strings.Contains(v.Reason, "none of its")) {
			t.Errorf("%s: %+v; want a failure because the stream completed nothing", text, v)
		}
	}
	// The error rate of a stream that completed nothing exists: 1 for slow.
	slo, _ := metrics.ParseSLO("slow:errors<50%")
	if v := metrics.Judge(slo, []*metrics.Run{run}); v.OK || v.Value == nil || *v.Value != 1 {
		t.Errorf("slow:errors<50%%: %+v, want a failure at 1", v)
	}
	// Every cause counts against --max-errors: "put" alone holds its SLO.
	slo, _ = metrics.ParseSLO("put:p99<1h")
	a := metrics.Assess([]metrics.SLO{slo}, 0.01, []*metrics.Run{run})
	if a.OK || a.Binding != "errors" || a.ErrorRate != run.ErrorRate || !a.Verdicts[0].OK {
		t.Errorf("Assess = %+v; want it to fail on errors (%v) while the SLO holds", a, run.ErrorRate)
	}
}

// TestShardFailures: the troubled model has one shard, so the subrequests it refused are
// the requests its streams lost to a full queue or a partition limit (timeouts and the
// client's own limit are not the shard's doing). The shard counts by arrival at the node
// and the streams by issue, 0.2 ms earlier, so a request issued in the 0.2 ms before the
// warmup's end may fall on either side: at 2,005 requests/s, 0.4 expected; allow 5.
func TestShardFailures(t *testing.T) {
	_, run := troubledResult(t)
	var want int64
	for _, s := range run.Streams {
		want += s.Failures[metrics.Rejected] + s.Failures[metrics.Throttled]
	}
	if got := run.Shards[0].Failures; want == 0 || math.Abs(float64(got-want)) > 5 {
		t.Errorf("shard 0 refused %d subrequests; its streams lost %d to a full queue or the partition limit", got, want)
	}
}
