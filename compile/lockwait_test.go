package compile

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// TestLockWaiters: a locked stream holds at most the backlog that stops the run as lock
// waiters, its peak rate times its lock_timeout when it has one, and its clients when it
// is closed-loop (job-queue's 64 workers were counted as 2 million waiters, 856 MB).
func TestLockWaiters(t *testing.T) {
	for _, c := range []struct {
		ss   scenario.StreamSpec
		want float64
	}{
		{scenario.StreamSpec{}, sim.DefaultMaxQueued},
		{scenario.StreamSpec{LockTimeout: 50 * sim.Millisecond}, 3600 * 0.05},
		{scenario.StreamSpec{Clients: 64}, 64},
		{scenario.StreamSpec{Clients: 64, LockTimeout: 10 * sim.Millisecond}, 36},
	} {
		if got := lockWaiters(&c.ss, 3600); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%+v at 3,600/s: %v waiters, want %v", c.ss, got, c.want)
		}
	}
}
