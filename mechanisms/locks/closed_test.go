package locks

import (
	"fmt"
	"math"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/sim"
)

// What the closed forms of row locks' tests share (grant_test.go, wake_test.go): the
// machine-repairman model, the rates and waits they compare with it, and the docs' figures.

// claimsPerSecond is the rate of the claims issued after the warmup that completed.
func claimsPerSecond(m *sim.Model, r *sim.Result) float64 {
	return float64(r.Streams[0].Completed) / (m.Duration - m.Warmup).Seconds()
}

// meanLockWait is the stream's mean wait for its lock, in seconds.
func meanLockWait(n *metrics.LockCounts) float64 {
	return n.WaitSum / float64(n.Waits) / float64(sim.Second)
}

// repairman is the closed machine-repairman model (M/M/1//W): w customers each spend a
// delay of mean d (any distribution: an infinite-server station) and then queue, FIFO,
// for one server with exponential service of mean h. Its stationary distribution has
// product form (BCMP), p(k queued or in service) ∝ w!/(w-k)! (h/d)^k, and it returns the
// server's throughput (1 - p(0)) / h and, by Little's law, the mean wait before service,
// w / X - d - h.
func repairman(w int, d, h float64) (x, wait float64) {
	r, term, sum := h/d, 1.0, 1.0
	for k := 1; k <= w; k++ {
		term *= float64(w-k+1) * r
		sum += term
	}
	x = (1 - 1/sum) / h
	return x, float64(w)/x - d - h
}

// grouped1 writes x with one decimal and its thousands grouped, as the docs quote rates.
func grouped1(x float64) string {
	tenths := int64(math.Round(x * 10))
	return fmt.Sprintf("%s.%d", groupInt(tenths/10), tenths%10)
}

// groupInt writes n with its thousands grouped by commas.
func groupInt(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// docFigures checks the figures docs/mitigations.md quotes from a validation test (owner,
// the markers' prefix) against the test's own, or rewrites them under make docs.
func docFigures(t *testing.T, owner string, figs map[string]string) {
	t.Helper()
	docmark.Figures(t, "../../docs/mitigations.md", owner, figs)
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
