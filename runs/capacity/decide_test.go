package capacity

import (
	"testing"

	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// TestSearchCost: a search that starts from the utilization law's limit and stops the runs
// whose verdict is settled (watcher) costs at most 60% of the simulated time of the search
// that starts from 1 and runs every run whole, and its answers are the same or more
// conservative, within twice the search's 1% resolution (the two probe other multiples,
// and near the answer the seeds' verdicts swing from one multiple to the next). M/M/4 (mu = 1000/s per core, lambda =
// 3200/s), p99 < 20 ms, three replications of 60 s.
func TestSearchCost(t *testing.T) {
	slo, err := sweep.ParseSLO("requests:p99<20ms")
	if err != nil {
		t.Fatal(err)
	}
	search := func(whole bool) Answer {
		res, err := Run(Config{
			Config: sweep.Config{Scenario: "../../testdata/queueing/mmc.toml", Options: scenarios.Options{Sets: []string{`duration="60s"`, `warmup="5s"`}},
				Replications: 3, Parallel: 2},
			SLOs: []sweep.SLO{slo}, MaxErrors: 0.001, wholeRuns: whole,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	before, after := search(true), search(false)
	t.Logf("before: %v (all %v), %.0f s simulated in %d runs; after: %v (all %v), %.0f s in %d runs",
		before.Multiple, before.AllAnswer, before.SimSeconds, before.Runs, after.Multiple, after.AllAnswer, after.SimSeconds, after.Runs)
	if after.SimSeconds > 0.6*before.SimSeconds {
		t.Errorf("the search simulated %.0f s, want at most 60%% of the %.0f s it took from 1 with whole runs", after.SimSeconds, before.SimSeconds)
	}
	for _, x := range [][2]float64{{after.Multiple, before.Multiple}, {after.AllAnswer, before.AllAnswer}} {
		if x[0] > x[1]*1.02 {
			t.Errorf("answer %v, want at most %v (the whole runs' answer, within 2%%)", x[0], x[1])
		}
	}
}
