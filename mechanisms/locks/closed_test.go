package locks

import (
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// What the closed forms of row locks' tests share (grant_test.go, wake_test.go) besides
// mechtest's: the rates and waits they compare with the machine-repairman model.

// claimsPerSecond is the rate of the claims issued after the warmup that completed.
func claimsPerSecond(m *sim.Model, r *sim.Result) float64 {
	return float64(r.Streams[0].Completed) / (m.Duration - m.Warmup).Seconds()
}

// meanLockWait is the stream's mean wait for its lock, in seconds.
func meanLockWait(n *metrics.LockCounts) float64 {
	return n.WaitSum / float64(n.Waits) / float64(sim.Second)
}

// lockCounts is what row locks reported of stream i of r; it fails the test when they
// reported nothing of it.
func lockCounts(t *testing.T, r *sim.Result, i int) *metrics.LockCounts {
	t.Helper()
	n := metrics.LockCountsOf(r, i)
	if n == nil {
		t.Fatalf("row locks reported nothing of stream %d", i)
	}
	return n
}
