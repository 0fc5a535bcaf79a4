package diagnose

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// The rules on the waits before service that mechanisms report (metrics.Wait): a page
// latch's (hot_index_page) and a connection pool's (connection_pool).

const (
	// hotLatchLoad: a page latch that a share of 0.7 or more of the inserts find held is
	// hot, as a row's lock (hotLockLoad): Poisson inserts find it held a share of the
	// time equal to its load (PASTA), and the wait grows as 1/(1 - load) beyond.
	hotLatchLoad = hotLockLoad
	// poolWaitShare, poolQueuedShare: a pool is the bottleneck when its requests spend
	// half their mean latency or more waiting for a connection, and half of them or more
	// had to wait.
	poolWaitShare   = 0.5
	poolQueuedShare = 0.5
)

// waits applies hot_index_page and connection_pool to each stream's waits.
func (f *finding) waits() {
	for i := range f.Run.Streams {
		st := &f.Run.Streams[i]
		for _, w := range st.Waits {
			switch w.Name {
			case "page_latch":
				if d, ok := hotIndexPage(st, w); ok {
					f.add(d)
				}
			case "pool":
				if d, ok := f.connectionPool(st, w); ok {
					f.add(d)
				}
			}
		}
	}
}

// hotIndexPage finds a stream whose inserts queue for their leaf page's latch: a key that
// grows with time appends every insert at the right edge of the index, one page at a time,
// however many cores the node has.
func hotIndexPage(st *metrics.Stream, w metrics.Wait) (Diagnosis, bool) {
	if w.Share < hotLatchLoad || w.Mean == nil {
		return Diagnosis{}, false
	}
	msg := fmt.Sprintf("%s: %s of its writes found their B-tree leaf page's latch held and waited %s ms on average (p99 %s ms): they append at the right edge of the index, where one page takes every insert in turn, so more cores do not help; lead the key with a salt bucket or another field (a tenant, a hash), or use a random id (UUIDv4 rather than a time-ordered one), so that inserts spread over many pages",
		st.Name, units.Percent(w.Share, 1), metrics.Ms(*w.Mean), metrics.Ms(*w.P99))
	return Diagnosis{Kind: "hot_index_page", Subject: st.Name, Message: msg,
		Evidence: map[string]float64{"queued_share": units.Round(w.Share, 4), "mean_wait_ms": units.Round(*w.Mean, 4), "p99_wait_ms": units.Round(*w.P99, 4)}}, true
}

// connectionPool finds a stream whose requests spend most of their time waiting for a
// connection in the client: the pool, not the database, limits it. Whether a larger pool
// helps depends on the nodes: with headroom it lets them take the load; near full it only
// moves the queue into the database.
func (f *finding) connectionPool(st *metrics.Stream, w metrics.Wait) (Diagnosis, bool) {
	lat := st.Latency.Mean
	if w.Mean == nil || lat == nil || *lat <= 0 || w.Share < poolQueuedShare || *w.Mean < poolWaitShare**lat {
		return Diagnosis{}, false
	}
	node := f.Run.Node
	cure := "the nodes have room (the busiest ran at " + units.Percent(node.Load, 1) + " of its cores): a larger pool lets them take the load, or fewer requests hold a connection (shorter transactions, no work between queries)"
	if node.Load >= burstPeakLoad {
		cure = "but the busiest node ran at " + units.Percent(node.Load, 1) + " of its cores: a larger pool would move the queue into the database; the database needs capacity (more nodes or cores) first"
	}
	msg := fmt.Sprintf("%s: %s of its requests waited for a connection of its client pool, %s ms on average, %s of their mean latency of %s ms; %s",
		st.Name, units.Percent(w.Share, 1), metrics.Ms(*w.Mean), units.Percent(*w.Mean / *lat, 1), metrics.Ms(*lat), cure)
	return Diagnosis{Kind: "connection_pool", Subject: st.Name, Message: msg,
		Evidence: map[string]float64{"queued_share": units.Round(w.Share, 4), "mean_wait_ms": units.Round(*w.Mean, 4), "latency_ms": units.Round(*lat, 4), "node_load": units.Round(node.Load, 4)}}, true
}
