package pool

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// The pool's diagnosis rule, connection_pool (docs/detection.md), on the wait it reports,
// pool.

const (
	// poolWaitShare, poolQueuedShare: a pool is the bottleneck when its requests spend
	// half their mean latency or more waiting for a connection, and half of them or more
	// had to wait.
	poolWaitShare   = 0.5
	poolQueuedShare = 0.5
	// fullNodeLoad: a node at 90% of its cores or more (the node_cpu alert's line) has no
	// room for the requests a larger pool would let in.
	fullNodeLoad = diagnose.NodeCPULine
)

func init() {
	diagnose.RegisterWaitRule("pool", func(v diagnose.Finding, st *metrics.Stream, w metrics.Wait) {
		if d, ok := connectionPool(v.Run().Node, st, w); ok {
			v.Add(d)
		}
	})
}

// connectionPool finds a stream whose requests spend most of their time waiting for a
// connection in the client: the pool, not the database, limits it. Whether a larger pool
// helps depends on the nodes (node, the busiest): with headroom it lets them take the
// load; near full it only moves the queue into the database.
func connectionPool(node metrics.Hottest, st *metrics.Stream, w metrics.Wait) (diagnose.Diagnosis, bool) {
	lat := st.Latency.Mean
	if w.Mean == nil || lat == nil || *lat <= 0 || w.Share < poolQueuedShare || *w.Mean < poolWaitShare**lat {
		return diagnose.Diagnosis{}, false
	}
	cure := "the nodes have room (the busiest ran at " + units.Percent(node.Load, 1) + " of its cores): a larger pool lets them take the load, or fewer requests hold a connection (shorter transactions, no work between queries)"
	if node.Load >= fullNodeLoad {
		cure = "but the busiest node ran at " + units.Percent(node.Load, 1) + " of its cores: a larger pool would move the queue into the database; the database needs capacity (more nodes or cores) first"
	}
	msg := fmt.Sprintf("%s: %s of its requests waited for a connection of its client pool, %s ms on average, %s of their mean latency of %s ms; %s",
		st.Name, units.Percent(w.Share, 1), metrics.Ms(*w.Mean), units.Percent(*w.Mean / *lat, 1), metrics.Ms(*lat), cure)
	return diagnose.Diagnosis{Kind: "connection_pool", Subject: st.Name, Message: msg,
		Evidence: map[string]float64{"queued_share": units.Round(w.Share, 4), "mean_wait_ms": units.Round(*w.Mean, 4), "latency_ms": units.Round(*lat, 4), "node_load": units.Round(node.Load, 4)}}, true
}
