package migrate

import (
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// TestSettledAfterBacklog: the old layout puts its eight shards on nodes 0 and 1 only, and
// reads at lambda = 50,000/s overload them: each gets 25,000/s against the 20,000/s its two
// cores of 100 µs serve, so each node's queue grows by about 5,000 requests a second. The
// cutover at 5 s moves the reads to sixteen shards over all four nodes, 12,500/s a node,
// but the FIFO queues of nodes 0 and 1 still hold about 25,000 requests issued before it,
// which drain at 20,000/s ahead of the new arrivals: the last of them finishes about
// D = 25,000 / 20,000 = 1.25 s after the cutover (the fluid approximation; the backlog's
// Poisson spread is about sqrt((25,000 + 20,000) x 5) = 474 requests, 2%, and the later of
// two nodes adds a little). Seed 5; tolerance 10% on D. With the reads at 10,000/s no queue
// builds: the requests in service at the cutover (one on average) finish within a few
// services, or none is in service and Settled stays -1.
func TestSettledAfterBacklog(t *testing.T) {
	run := func(rate float64) *metrics.MigrationResult {
		m := migModel(5, 1, rate, 0, 8*sim.Second, Migration{Rate: 1000, ReadCost: sim.Microsecond, WriteCost: sim.Microsecond, Cutover: 5 * sim.Second})
		m.ShardNode = []int{0, 1, 0, 1, 0, 1, 0, 1}
		return metrics.MigrationReport(sim.Run(m))
	}
	g := run(50000)
	if g.Cutover != 5*sim.Second {
		t.Fatalf("cutover at %v, want 5s", g.Cutover)
	}
	within(t, "drain after the cutover (s)", (g.Settled - g.Cutover).Seconds(), 1.25, 0.10)
	g = run(10000)
	if d := g.Settled - g.Cutover; g.Settled >= 0 && d > 2*sim.Millisecond {
		t.Errorf("light load: the last request issued before the cutover finished %v after it, want within 2ms", d)
	}
}
