package diagnose

import (
	"fmt"
	"math"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// The thresholds of cluster_overloaded.
const (
	// overloadNodeLoad: over the run every node runs at 90% of its cores or more
	// (burstPeakLoad, the line of the node_cpu alert): the load is even and there is no
	// idle capacity to move it to.
	overloadNodeLoad = burstPeakLoad
	// overloadErrorRate: 1% or more of the requests failed for want of capacity (a full
	// queue, or a client that stopped waiting), or the run stopped on its backlog.
	overloadErrorRate = 0.01
	// overloadTargetLoad is the load per core the cure aims at: a node at 70% keeps its
	// queue short (an M/M/1 queue waits 2.3 services there, 9 at 90%).
	overloadTargetLoad = 0.7
)

// overloaded applies cluster_overloaded: every node is busy over the run and requests
// fail for want of capacity, so the load is above what the cluster serves rather than
// badly spread; no key design, split or move helps, only more cores. A burst that
// synchronized_burst found explains it instead (the load is bunched in time), and a row
// lock's failures are the lock's, not the cores'.
func (f *finding) overloaded() {
	for _, d := range f.out {
		if d.Kind == "synchronized_burst" {
			return
		}
	}
	run := f.Run
	failed := run.Failures[metrics.Rejected] + run.Failures[metrics.TimedOut]
	errRate := 0.0
	if run.Offered > 0 {
		errRate = float64(failed) / float64(run.Offered)
	}
	if len(run.Nodes) == 0 || (errRate < overloadErrorRate && !run.Saturated) {
		return
	}
	least := &run.Nodes[0]
	for i := range run.Nodes {
		if run.Nodes[i].Utilization < least.Utilization {
			least = &run.Nodes[i]
		}
	}
	if least.Utilization < overloadNodeLoad {
		return
	}
	f.add(f.overload(least, failed, errRate))
}

// overload words cluster_overloaded: the nodes' load, the least busy node, the queues and
// failures, and the cores the offered load needs.
func (f *finding) overload(least *metrics.Node, failed int64, errRate float64) Diagnosis {
	run := f.Run
	var busy, cores float64
	queue := least.MaxQueue // the shortest of the nodes' longest queues
	for _, n := range run.Nodes {
		busy += n.Utilization * float64(n.Cores)
		cores += float64(n.Cores)
		queue = min(queue, n.MaxQueue)
	}
	mean := busy / cores
	// The work offered is about the work served scaled up by the requests that failed;
	// at overloadTargetLoad per core it needs that many times today's cores.
	times := mean / max(1-errRate, 0.01) / overloadTargetLoad
	nodes := int(math.Ceil(float64(len(run.Nodes))*times - 1e-9))
	what := fmt.Sprintf("%s of the requests failed for want of capacity (%s)", units.Percent(errRate, 1), units.Count(failed))
	if run.Saturated {
		what = fmt.Sprintf("the run stopped at %s with %s requests waiting", units.Clock(f.Scenario.Start, run.SaturatedAt, units.TimeOfDay), units.Count(int64(run.Backlog)))
	}
	msg := fmt.Sprintf("every node is busy: over the run the cluster's cores ran at %s and its least busy node, node %d, at %s; every node queued %s requests or more at once, and %s: the load is spread evenly but above what the cluster serves, so no key design, split or move helps: add cores or nodes, about %.1f times today's (%d nodes of today's size) to run at %s; shardsim capacity finds the load it takes within an SLO",
		units.Percent(mean, 1), least.ID, units.Percent(least.Utilization, 1), units.Count(int64(queue)), what, times, nodes, units.Percent(overloadTargetLoad, 0))
	return Diagnosis{Kind: "cluster_overloaded", Subject: "cluster", Message: msg,
		Evidence: map[string]float64{"mean_load": metrics.Util(mean), "least_node": float64(least.ID), "least_node_load": metrics.Util(least.Utilization), "least_max_queue": float64(queue),
			"error_rate": units.Round(errRate, 4), "failed": float64(failed), "capacity_needed": units.Round(times, 2), "nodes_needed": float64(nodes)}}
}
