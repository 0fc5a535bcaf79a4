package scenarios_test

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/units"
)

// TestJobQueueStory runs the built-in job-queue (seed 5, 60 s, the first 5 s warmup: 55 s
// measured) and holds each variant to its closed form (docs/mitigations.md, "Job
// queues"). The workers think 10 ms (exponential), cross the 0.5 ms network twice, hold
// their job's lock 5 ms (constant) and spend 0.5 ms of CPU (exponential) on 8 cores.
//
//   - FOR UPDATE: the head is never idle, so the queue serves 1 / 5 ms = 200 claims a second
//     (11,000 in 55 s; 0.5%), and by Little's law on the closed system each claim waits
//     W / X - (think + 2 network + CPU) - hold = 64 / 200 - 11.5 ms - 5 ms = 303.5 ms for
//     the lock (1%); with 256 workers the rate is the same and the wait
//     256 / 200 - 16.5 ms = 1,263.5 ms (1%). The diagnosis is hot_row_lock, whose cure is
//     SKIP LOCKED.
//   - SKIP LOCKED: no claim waits, and W / (think + 2 network + hold + CPU) =
//     64 / 16.5 ms = 3,879 claims a second (2%: the cores, a quarter busy, add a little
//     queueing); no diagnosis.
//   - 8 queue shards: at most 8 x 200 = 1,600 a second, and more than the one head's 200
//     (7.4 times it today).
//
// The figures go to docs/mitigations.md's table ("Job queues"), the FOR UPDATE variant's
// diagnosis to docs/detection.md ("hot_row_lock").
//
// Every [[claims]] entry holds.
func TestJobQueueStory(t *testing.T) {
	s := runOtherStory(t, "job-queue")
	const secs = 55.0
	rate := func(v string) float64 { return float64(s.stream(v, "claim_job").Completed) / secs }
	wait := func(v string) float64 { return *s.figures(v, "claim_job").Locks.Mean }
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want)/want > tol {
			t.Errorf("%s: %.2f, want %.2f within %.1f%%", what, got, want, 100*tol)
		}
	}
	near("FOR UPDATE: claims/s", rate("FOR UPDATE"), 200, 0.005)
	near("FOR UPDATE: mean lock wait (ms)", wait("FOR UPDATE"), 303.5, 0.01)
	near("256 workers: claims/s", rate("FOR UPDATE, 256 workers"), 200, 0.005)
	near("256 workers: mean lock wait (ms)", wait("FOR UPDATE, 256 workers"), 1263.5, 0.01)
	near("SKIP LOCKED: claims/s", rate("FOR UPDATE SKIP LOCKED"), 64/16.5e-3, 0.02)
	if l := s.figures("FOR UPDATE SKIP LOCKED", "claim_job").Locks; l.Queued != 0 {
		t.Errorf("SKIP LOCKED: %d claims queued for a lock, want none", l.Queued)
	}
	if x := rate("8 queue shards, FOR UPDATE"); x > 1600 || x < 4*200 {
		t.Errorf("8 queue shards: %.0f claims/s, want between 4 and 8 heads' 200/s", x)
	}
	for _, v := range []string{"FOR UPDATE", "FOR UPDATE, 256 workers", "8 queue shards, FOR UPDATE"} {
		s.wantDiagnosis(v, "hot_row_lock", "SKIP LOCKED")
	}
	s.wantDiagnosis("FOR UPDATE SKIP LOCKED", "", "")
	figs := map[string]string{}
	for fig, v := range map[string]string{"naive": "FOR UPDATE", "many": "FOR UPDATE, 256 workers", "skip": "FOR UPDATE SKIP LOCKED", "sharded": "8 queue shards, FOR UPDATE"} {
		figs["jq."+fig+".rate"] = units.Count(int64(math.Round(rate(v))))
		figs["jq."+fig+".wait"] = metrics.Ms(wait(v)) + " ms"
	}
	var head string
	for _, d := range s.summary("FOR UPDATE").Diagnosis {
		if d.Kind == "hot_row_lock" {
			head = d.Message
		}
	}
	docmark.Apply(t, &docmark.Parts{Owner: "jq", Figs: figs, Blocks: map[string]string{"jq.head": head}}, "../docs/mitigations.md", "../docs/detection.md")

	s.wantClaims(4)
}
