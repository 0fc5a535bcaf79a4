package scenarios_test

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// A start moved into black-friday's ramp (06:00 1,000/s, 08:00 10,000/s) starts the run
// there: with start = "07:55" the orders arrive from t = 0 at the schedule's rate at 07:55,
// rising to 10,000/s at 08:00, and the 06:00 point only shapes that rate.
//
// The run is 10 s of the "before" variant without a warmup (seed 42, the scenario's), so
// its first window is [0, 10 s). create_order's rate there is linear, r(t) = 1,000 + 9,000 x (115 min + t) /
// 120 min, so the expected count is the rate at 5 s times 10 s:
// n = 10 x (1,000 + 9,000 x (6,900 + 5) / 7,200) = 96,312.5. The count is Poisson, so its
// standard deviation is sqrt(n) = 310; the test allows 4 of them (1,241, 1.3%). The rate
// of the schedule's first point (1,000/s) or of 08:00 (10,000/s, n = 100,000, 12 standard
// deviations away) would fail it.
func TestStartInsideSchedule(t *testing.T) {
	sc, err := scenarios.Load("black-friday", scenarios.Options{
		Sets:      []string{"start=07:55", `warmup="0s"`},
		Overrides: []scenarios.Override{{Flag: "--duration 10s", Key: "duration", Value: `"10s"`, ScaleWarmup: true}}, // as --duration 10s
		Variants:  []string{"before"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(sc.Variants[0].Model())
	rate := metrics.RateAt(r, 0, 0, false)
	if rate == nil {
		t.Fatal("no offered rate in the first window")
	}
	const want = 10 * (1000 + 9000*(6900+5)/7200.0)
	got := *rate * 10 // requests offered in the 10 s window
	if tol := 4 * math.Sqrt(want); math.Abs(got-want) > tol {
		t.Errorf("create_order offered %.0f requests in [07:55:00, 07:55:10), want %.1f +- %.0f (the schedule's rate at 07:55:05 x 10 s)", got, want, tol)
	}
}

// TestStartPastDetailAndClaims: black-friday's detail range (08:00 to 08:35) and its first
// claim (orders at 08:00) name clock times that a start moved to 08:10 has passed. Read as
// the next morning they lay past the run's end and the scenario was refused; now the range
// is cut at the new start (08:10 to 08:35: 0 to 25 minutes) and the claim is before the
// run, so left unmeasured. From 08:40 the whole range is before the run: no detail.
func TestStartPastDetailAndClaims(t *testing.T) {
	load := func(start string) *scenarios.Scenario {
		sc, err := scenarios.Load("black-friday", scenarios.Options{Sets: []string{"start=" + start}, Variants: []string{"before"}})
		if err != nil {
			t.Fatalf("start %s: %v", start, err)
		}
		return sc
	}
	s := load("08:10").Variants[0].Spec
	if d := s.Detail; d.From != 0 || d.To != 25*sim.Minute {
		t.Errorf("start 08:10: detail [%v, %v), want [0, 25m)", d.From, d.To)
	}
	if at := s.Claims[0].At; at != -10*sim.Minute {
		t.Errorf("start 08:10: the 08:00 claim at %v, want -10m (before the run)", at)
	}
	if d := load("08:40").Variants[0].Spec.Detail; d.To != 0 {
		t.Errorf("start 08:40: detail [%v, %v), want none", d.From, d.To)
	}
}

// TestStartBeforeClaim: a start moved to 07:55 puts black-friday's 08:00 claim and detail
// range after the start, not before it: with the whole run (which reaches 08:00) the claim
// is 5 minutes in, and with a run of 2 minutes it is past the end (unmeasured, "the run
// ends before 08:00"), and the detail range is kept nowhere. They were read as the day's
// 08:00 before the run once the run ended before them.
func TestStartBeforeClaim(t *testing.T) {
	for _, dur := range []string{"", "2m"} {
		opts := scenarios.Options{Sets: []string{"start=07:55"}, Variants: []string{"before"}}
		if dur != "" {
			opts.Overrides = []scenarios.Override{{Flag: "--duration " + dur, Key: "duration", Value: `"` + dur + `"`, ScaleWarmup: true}}
		}
		sc, err := scenarios.Load("black-friday", opts)
		if err != nil {
			t.Fatalf("start 07:55, duration %q: %v", dur, err)
		}
		s := sc.Variants[0].Spec
		if at := s.Claims[0].At; at != 5*sim.Minute {
			t.Errorf("start 07:55, duration %q: the 08:00 claim at %v, want 5m (after the start)", dur, at)
		}
		if dur != "" && s.Detail.To != 0 {
			t.Errorf("start 07:55, duration %q: detail [%v, %v), want none (it begins after the run)", dur, s.Detail.From, s.Detail.To)
		}
	}
}
