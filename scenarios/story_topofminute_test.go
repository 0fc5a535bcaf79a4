package scenarios_test

import (
	"sync"
	"testing"

	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestTopOfMinuteStory runs the built-in top-of-minute scenario (seed 60, shortened to
// 5 minutes: five bursts, about 1.1 million requests per variant) and checks its story in
// numbers. The values a run gives today are noted beside each check; the bounds leave
// room around them so that the test catches a broken story, not noise.
func TestTopOfMinuteStory(t *testing.T) {
	sc, err := scenarios.Load("top-of-minute", scenarios.Options{Sets: []string{"duration=5m"}})
	if err != nil {
		t.Fatal(err)
	}
	const (
		sync1  = "synchronized flush"
		jitter = "jittered flush"
		sync2  = "synchronized, 2x nodes"
		sync4  = "synchronized, 4x nodes"
	)
	res := map[string]*sim.Result{}
	slo := map[string]float64{} // each stream's first SLO threshold, ms
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, v := range sc.Variants {
		for _, st := range v.Streams {
			slo[st.Name] = float64(st.SLO[0]) / float64(sim.Millisecond)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := sim.Run(v.Model())
			mu.Lock()
			res[v.Name] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, name := range []string{sync1, jitter, sync2, sync4} {
		if res[name] == nil {
			t.Fatalf("no variant %q", name)
		}
	}
	if slo["flush_metrics"] != 100 || slo["dashboard_latest"] != 50 {
		t.Fatalf("SLOs %v, want flush_metrics 100 ms and dashboard_latest 50 ms", slo)
	}

	stream := func(r *sim.Result, name string) *sim.StreamResult {
		for i := range r.Streams {
			if r.Streams[i].Name == name {
				return &r.Streams[i]
			}
		}
		t.Fatalf("no stream %q", name)
		return nil
	}
	p99 := func(variant, st string) float64 { return stream(res[variant], st).QuantileMillis(0.99) }
	meanLoad := func(r *sim.Result) float64 { // mean node utilization over the run
		sum := 0.0
		for n := range r.Nodes {
			sum += r.NodeLoad(n)
		}
		return sum / float64(len(r.Nodes))
	}
	windowLoad := func(r *sim.Result, w int) float64 { // mean node utilization in window w
		sum := 0.0
		for n := range r.Nodes {
			sum += r.NodeUtilization(w, n)
		}
		return sum / float64(len(r.Nodes))
	}
	peakLoad := func(r *sim.Result) float64 {
		peak := 0.0
		for w := range r.Windows {
			peak = max(peak, windowLoad(r, w))
		}
		return peak
	}
	// windowsOverSLO counts the 1-second windows whose p99 is above the stream's SLO.
	windowsOverSLO := func(variant, st string) int {
		n := 0
		for _, w := range stream(res[variant], st).Win {
			if w.QuantileMillis(0.99) > slo[st] {
				n++
			}
		}
		return n
	}
	minutes := int(sc.Duration / sim.Minute)

	// The same work on average: synchronized and jittered offer the same 3,250 writes/s
	// (2,500 x 78/60), so the 4-node variants are 43% busy (today 0.431 both).
	a, b := stream(res[sync1], "flush_metrics").Offered, stream(res[jitter], "flush_metrics").Offered
	if d := float64(a-b) / float64(b); d < -0.01 || d > 0.01 {
		t.Errorf("synchronized offers %d writes, jittered %d: want the same mean rate (within 1%%)", a, b)
	}
	for _, v := range []string{sync1, jitter} {
		if l := meanLoad(res[v]); l < 0.40 || l > 0.47 {
			t.Errorf("%s: mean node load %.3f, want 0.40-0.47", v, l)
		}
	}
	if l := meanLoad(res[sync2]); l < 0.20 || l > 0.235 {
		t.Errorf("%s: mean node load %.3f, want half the 4-node load, 0.20-0.235", sync2, l)
	}

	// The burst saturates every node in the first two windows of every minute (today
	// 0.999-1.0), while jittered never goes above 60% in any window (today 0.46).
	for m := range minutes {
		for w := 60 * m; w < 60*m+2; w++ {
			if l := windowLoad(res[sync1], w); l < 0.99 {
				t.Errorf("%s: mean node load %.3f in window %d s, the burst; want >= 0.99", sync1, l, w)
			}
		}
	}
	if l := peakLoad(res[jitter]); l > 0.6 {
		t.Errorf("%s: busiest window at %.3f mean node load; want <= 0.6", jitter, l)
	}

	// Latency: synchronized p99 is seconds (today 4164 ms for writes), at least
	// 100 times jittered's (6.2 ms, 4.6 ms), which holds both SLOs.
	for _, st := range []string{"flush_metrics", "dashboard_latest"} {
		s, j := p99(sync1, st), p99(jitter, st)
		if s < 1000 || s < 100*j {
			t.Errorf("%s p99: synchronized %.1f ms, jittered %.1f ms; want synchronized >= 1 s and >= 100x jittered", st, s, j)
		}
		if j >= slo[st] {
			t.Errorf("%s p99: jittered %.1f ms, want under its SLO %.0f ms", st, j, slo[st])
		}
		if n := windowsOverSLO(jitter, st); n != 0 {
			t.Errorf("%s: jittered has %d windows with p99 over the SLO, want none", st, n)
		}
	}
	// Synchronized spends about 9 seconds of every minute over the SLO (the burst plus the
	// drain; today 45 windows in 5 minutes), 2x nodes about 4 (today 20 windows).
	if n := windowsOverSLO(sync1, "flush_metrics"); n < 6*minutes || n > 12*minutes {
		t.Errorf("%s: %d windows over the SLO in %d minutes, want 6-12 a minute", sync1, n, minutes)
	}
	if n := windowsOverSLO(sync2, "flush_metrics"); n < 2*minutes || n > 6*minutes {
		t.Errorf("%s: %d windows over the SLO in %d minutes, want 2-6 a minute", sync2, n, minutes)
	}

	// Twice the nodes do not fix it: p99 is still over 5 times the SLO (today 1148 ms,
	// 11 times), and the burst still saturates the nodes.
	if s := p99(sync2, "flush_metrics"); s < 5*slo["flush_metrics"] {
		t.Errorf("%s: p99 %.1f ms, want >= 5x the SLO (capacity doubled is not enough)", sync2, s)
	}
	if l := windowLoad(res[sync2], 0); l < 0.99 {
		t.Errorf("%s: mean node load %.3f in the first burst, want >= 0.99", sync2, l)
	}
	// Four times the nodes do: the burst peaks below saturation (today 0.80) and p99
	// holds the SLO (today 9.7 ms), at a mean load of 11%.
	if l := peakLoad(res[sync4]); l > 0.9 {
		t.Errorf("%s: busiest window at %.3f mean node load, want <= 0.9", sync4, l)
	}
	if s := p99(sync4, "flush_metrics"); s >= slo["flush_metrics"] {
		t.Errorf("%s: p99 %.1f ms, want under the SLO", sync4, s)
	}
	t.Logf("p99 writes: synchronized %.1f ms, jittered %.2f ms, 2x nodes %.1f ms, 4x nodes %.2f ms",
		p99(sync1, "flush_metrics"), p99(jitter, "flush_metrics"), p99(sync2, "flush_metrics"), p99(sync4, "flush_metrics"))
	t.Logf("mean node load: %.3f, %.3f, %.3f, %.3f; busiest window: %.3f, %.3f, %.3f, %.3f",
		meanLoad(res[sync1]), meanLoad(res[jitter]), meanLoad(res[sync2]), meanLoad(res[sync4]),
		peakLoad(res[sync1]), peakLoad(res[jitter]), peakLoad(res[sync2]), peakLoad(res[sync4]))
	t.Logf("windows over the SLO: synchronized %d, 2x nodes %d, in %d minutes",
		windowsOverSLO(sync1, "flush_metrics"), windowsOverSLO(sync2, "flush_metrics"), minutes)

	// Diagnosis: the synchronized flush is a burst in time, at the minute's period; the
	// jittered flush has no hotspot.
	for _, v := range sc.Variants {
		d := report.Summarize(describe(sc), []report.Run{{Variant: describeVariant(v), Result: res[v.Name]}}).Variants[0].Diagnosis
		var kinds []string
		period := 0.0
		for _, x := range d {
			kinds = append(kinds, x.Kind)
			if x.Kind == "synchronized_burst" {
				period = x.Evidence["period_s"]
			}
		}
		switch v.Name {
		case sync1, sync2:
			if period != 60 {
				t.Errorf("%s: diagnosis %v, want synchronized_burst with a 60 s period (got %v s)", v.Name, kinds, period)
			}
		case jitter, sync4:
			if len(d) != 0 {
				t.Errorf("%s: diagnosis %v, want none", v.Name, kinds)
			}
		}
	}
}
