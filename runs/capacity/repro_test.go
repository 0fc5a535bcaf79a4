package capacity_test

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// Issue 15 (a): in testdata/timeouts.toml every request times out and none is rejected.
// Capacity used to count only rejections and read the empty stream's p99 as 0, and so
// answered ">= 64x". Now no multiple passes, and a sweep's error rate is 1, all of it
// timeouts, with no latency at all.
func TestEveryRequestTimesOut(t *testing.T) {
	c := answer(t, "../../testdata/timeouts.toml", "get:p99<50ms")
	if c.Multiple != 0 || c.Binding != "get:p99<50ms" || math.IsNaN(c.Failed) {
		t.Errorf("capacity: multiple %v (failed at %v, binding %q, %s); want no passing multiple, bound by the SLO",
			c.Multiple, c.Failed, c.Binding, c.Reason)
	}
	rows, err := sweep.Run(sweep.Config{Scenario: "../../testdata/timeouts.toml", Replications: 2, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	st := r.Streams[0]
	if r.ErrorRate.Mean != 1 || st.ErrorRate.Mean != 1 || st.Completed.Mean != 0 || st.Offered.Mean < 10 ||
		st.Failures[metrics.TimedOut].Mean != st.Offered.Mean || r.Failures[metrics.TimedOut].Mean != st.Offered.Mean {
		t.Errorf("sweep: error rate %v (stream %v), %v of %v offered timed out, %v completed; want every request timed out",
			r.ErrorRate.Mean, st.ErrorRate.Mean, st.Failures[metrics.TimedOut].Mean, st.Offered.Mean, st.Completed.Mean)
	}
	if !math.IsNaN(st.P99.Mean) || !math.IsNaN(st.Mean.Mean) {
		t.Errorf("sweep: p99 %v, mean %v of a stream that completed nothing; want undefined (NaN)", st.P99.Mean, st.Mean.Mean)
	}
}

// Issue 15 (b): quickstart over 60 s (30 s of warmup) has a scan at 1/s, so below a
// load_factor of about 1/30 it issues no request after the warmup. Its p99 can never be
// under 1 ms (a scan costs 20 ms), yet capacity answered 0.065, where the scan issued
// nothing and its p99 read as 0. Now no multiple passes, for any variant.
func TestCapacityNeedsRequests(t *testing.T) {
	slo, err := sweep.ParseSLO("report_all_users:p99<1ms")
	if err != nil {
		t.Fatal(err)
	}
	res, err := capacity.Run(capacity.Config{
		Config: sweep.Config{Scenario: "quickstart", Options: scenarios.Options{Sets: []string{`duration="60s"`}},
			Replications: 1, Parallel: 2},
		SLOs: []sweep.SLO{slo},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res {
		if c.Multiple != 0 || c.Binding != slo.Text {
			t.Errorf("%s: multiple %v, binding %q (%s); want none passing, bound by %s", c.Variant, c.Multiple, c.Binding, c.Reason, slo.Text)
		}
	}
}
