package capacity

import (
	"fmt"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/runs/runner"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// mmcRun runs the M/M/4 of testdata/queueing/mmc.toml (mu = 1000/s per core, 3200/s at
// load factor 1: 80% of the cores) at load factor lf and seed, 60 s in windows of 5 s
// after a 5 s warmup; watched as a search with a ceiling of 85% and slo watches it, or
// whole.
func mmcRun(t *testing.T, lf float64, seed uint64, slo string, watched bool) (*metrics.Run, *Config) {
	t.Helper()
	s, err := sweep.ParseSLO(slo)
	if err != nil {
		t.Fatal(err)
	}
	c := &Config{Config: sweep.Config{MaxUtilization: 0.85}, SLOs: []sweep.SLO{s}, MaxErrors: 0.001}
	sc, err := scenarios.Load("../../testdata/queueing/mmc.toml", scenarios.Options{Sets: []string{
		`duration="60s"`, `warmup="5s"`, `window="5s"`, fmt.Sprintf("load_factor=%v", lf), fmt.Sprintf("seed=%d", seed)}})
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Variants[0]
	m := c.Model(v)
	if watched {
		lim := offeredOf(v)
		if !lim.steady || !lim.held {
			t.Fatalf("the M/M/4 is not steady with its windows held: %+v", lim)
		}
		m.Watch = c.watcher(m, 1, lim)
	}
	return metrics.Of(sim.Run(m)), c
}

// TestCeilingFailsEarly: a run whose node is 95% busy (load factor 1.1875) has a whole
// window past the 85% ceiling from its first (a window of 5 s at 95% has a standard
// deviation of about 1% of the cores: sqrt(2 rho s / (c W)) for exponential services), so
// the watch stops it as a failure within a few windows (it waits, at each watch, while the
// window it would cut short is busier than the busiest whole one; tolerance: stopped
// before 30 of the 60 s), with only an error-rate SLO, which settles nothing early; it
// fails the ceiling, and so does the whole run. A run at 80% (load factor 1), whose
// windows stay 5 standard deviations under 85%, is not stopped. Seeds 21 to 25.
func TestCeilingFailsEarly(t *testing.T) {
	for seed := uint64(21); seed <= 25; seed++ {
		hot, c := mmcRun(t, 1.1875, seed, "requests:errors<1%", true)
		whole, _ := mmcRun(t, 1.1875, seed, "requests:errors<1%", false)
		if !hot.Decided || hot.Elapsed > 30*sim.Second {
			t.Errorf("seed %d at 95%%: decided %v at %v, want stopped before 30s", seed, hot.Decided, hot.Elapsed)
		}
		if a := c.assess([]*metrics.Run{hot}); a.OK || a.Binding != metrics.Ceiling {
			t.Errorf("seed %d at 95%%: the stopped run %+v, want a ceiling failure", seed, a)
		}
		if c.passes(whole) {
			t.Errorf("seed %d at 95%%: the whole run passes", seed)
		}
		cool, _ := mmcRun(t, 1, seed, "requests:errors<1%", true)
		if cool.Decided || cool.Elapsed != 60*sim.Second || !c.passes(cool) {
			t.Errorf("seed %d at 80%%: decided %v at %v, passes %v; want a whole run that passes", seed, cool.Decided, cool.Elapsed, c.passes(cool))
		}
	}
}

// TestStopKeepsWholeWindows: a watched run stopped early as a failure has its busiest
// window among its whole windows, so that its peak is one the whole run of the same seed
// has, at most the whole run's: the watch goes on while the window a stop would cut short
// (the watch comes at some point within a window) is busier than the busiest whole one.
// At 95%, seeds 21 to 30 (without the wait, three of the ten
// stops cut their busiest window short, one of them above the whole run's peak); exact,
// no tolerance.
func TestStopKeepsWholeWindows(t *testing.T) {
	for seed := uint64(21); seed <= 30; seed++ {
		hot, _ := mmcRun(t, 1.1875, seed, "requests:errors<1%", true)
		whole, _ := mmcRun(t, 1.1875, seed, "requests:errors<1%", false)
		n, peak := metrics.BusiestAtPeak(hot)
		_, wholePeak := metrics.BusiestAtPeak(whole)
		end := sim.Time(hot.Nodes[n].PeakWindow+1) * 5 * sim.Second
		if !hot.Decided || end > hot.Elapsed || peak > wholePeak {
			t.Errorf("seed %d: stopped at %v (decided %v), busiest window %d ends at %v, peak %.4f against the whole run's %.4f",
				seed, hot.Elapsed, hot.Decided, hot.Nodes[n].PeakWindow, end, peak, wholePeak)
		}
	}
}

// TestCeilingPassWellUnder: a run whose SLO is settled as a pass early (p99 < 20 ms; an
// M/M/4's p99 is under 10 ms up to 85% busy) is stopped as a pass only once its node's
// windows are settled under the 85% ceiling too: at 60% (load factor 0.75; a window's
// busy fraction varies by about 0.8% of the cores) after the six windows the spread is
// measured over (35 s), before the run's end (a watch waits while the window it would cut
// is busier than the whole ones); at 83% (load factor 1.0375), where the mean of the
// windows is within four of their standard deviations (0.9% of the cores) of the
// ceiling, never: the run goes on to its end, or until a window passes the ceiling.
// Seeds 21 to 25: with the deviation measured over six windows alone, two of the five
// runs at 83% were settled as passes at 40 s.
func TestCeilingPassWellUnder(t *testing.T) {
	for seed := uint64(21); seed <= 25; seed++ {
		cool, c := mmcRun(t, 0.75, seed, "requests:p99<20ms", true)
		if !cool.Decided || !c.passes(cool) || cool.Elapsed >= 60*sim.Second {
			t.Errorf("seed %d at 60%%: decided %v at %v, passes %v; want a pass settled before the end", seed, cool.Decided, cool.Elapsed, c.passes(cool))
		}
		warm, _ := mmcRun(t, 1.0375, seed, "requests:p99<20ms", true)
		if warm.Decided && c.passes(warm) {
			t.Errorf("seed %d at 83%%: settled as a pass at %v", seed, warm.Elapsed)
		}
	}
}

// TestCeilingMeansSettle: the runs of a probe over three replications at 95% (load factor
// 1.1875, p99 < 100 ms, which the M/M/4 meets there: about 20 ms) are stopped as ceiling
// failures within a few windows, and their peaks, each one of its whole run's windows,
// are past the 85% ceiling in the mean too: the probe's verdict under every requirement
// is settled, and none of the runs is made again whole (it was, when the means were
// judged on the SLOs alone). Seeds 12 to 14 (mmc.toml's and the next two), 60 s runs.
func TestCeilingMeansSettle(t *testing.T) {
	slo, err := sweep.ParseSLO("requests:p99<100ms")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := NewPlan(&Config{
		Config: sweep.Config{Scenario: "../../testdata/queueing/mmc.toml", Options: scenarios.Options{Sets: []string{`duration="60s"`, `window="5s"`}},
			Replications: 3, Parallel: 1, MaxUtilization: 0.85},
		SLOs: []sweep.SLO{slo}, MaxErrors: 0.001,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := cp.searches[0]
	s.loop = runner.New(runner.Options{Parallel: 1})
	if err := s.findLimit(); err != nil {
		t.Fatal(err)
	}
	s.reps = 3
	pr, err := s.pooled(1.1875)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Assessment.OK || pr.Assessment.Binding != metrics.Ceiling || pr.Passes != 0 {
		t.Errorf("probe at 95%%: %+v, %d passes; want a ceiling failure in every replication", pr.Assessment, pr.Passes)
	}
	for k, r := range s.runs {
		if !r.Decided || r.Elapsed >= 60*sim.Second {
			t.Errorf("run %+v: decided %v at %v, want stopped early and not made again", k, r.Decided, r.Elapsed)
		}
	}
	t.Logf("p99 %.1f ms, peak %.4f", pr.Stats[0].Mean, pr.PeakLoad.Mean)
	if s.count != 3 {
		t.Errorf("%d runs made, want 3", s.count)
	}
}

// TestSaturatedStops: a run offered more than its node's cores (load factor 1.5: 120% of
// the M/M/4) fails early though every window it would cut short is fully busy, and so
// busier than any whole window it measured (where the wait for a whole busiest window
// would never end). Seeds 21 to 23; tolerance: stopped before 30 of the 60 s (its first
// whole window is past the ceiling, its p99 past 100 ms within a few seconds).
func TestSaturatedStops(t *testing.T) {
	for seed := uint64(21); seed <= 23; seed++ {
		r, c := mmcRun(t, 1.5, seed, "requests:p99<100ms", true)
		if !r.Decided || r.Elapsed > 30*sim.Second || c.passes(r) {
			t.Errorf("seed %d at 120%%: decided %v at %v, passes %v; want a failure stopped before 30s", seed, r.Decided, r.Elapsed, c.passes(r))
		}
	}
}
