package sim

import (
	"fmt"

	"github.com/shardsim/shardsim/internal/waitlist"
)

// nodeTable is the nodes' state: their cores and queues (a run on several workers splits
// the nodes among them, parallel.go: a node's state is its own). What the node series
// need beyond the shards' is the recorder's.
type nodeTable struct {
	nodes  []nodeState
	nNodes int
}

// newNodeTable makes the nodes of m with their cores and queue limits, and fills their
// results' cores. A node that joins later (Core.JoinLater) has no cores until then.
func newNodeTable(m *Model, r *Result) nodeTable {
	t := nodeTable{nodes: make([]nodeState, len(m.Nodes)), nNodes: len(m.Nodes)}
	for i, n := range m.Nodes {
		if n.Cores < 1 {
			panic(fmt.Sprintf("sim: node %d has %d cores", i, n.Cores))
		}
		t.nodes[i] = nodeState{cores: n.Cores, limit: n.QueueLimit}
		r.Nodes[i].Cores = n.Cores
	}
	return t
}

type nodeState struct {
	cores, busy int
	limit       int
	q           waitlist.FIFO
	lastW       int // last window whose max queue is up to date
}

// touchQueue carries a node's queue length into the windows since the last change, so a
// window in which the queue did not change still reports the backlog it held. It is called
// before every change of a queue and does nothing but compare in most calls, so that
// test is kept small enough to inline and the work is in carryQueue.
func (r *recorder) touchQueue(now Time, ni int, n *nodeState) {
	if now >= r.wStart && now < r.wEnd && r.touchW <= n.lastW {
		return // now is in the current window, which the node has seen
	}
	r.carryQueue(now, ni, n)
}

// carryQueue is touchQueue's work.
func (r *recorder) carryQueue(now Time, ni int, n *nodeState) {
	r.carry(now, r.res.NodeMaxQueue, len(r.res.Nodes), -1, ni, &n.lastW, int32(n.q.Len()))
}

// startQueued starts waiting subrequests on node n's free cores.
func (e *engine) startQueued(now Time, ni int, n *nodeState) {
	for n.busy < n.cores && n.q.Len() > 0 && !e.stopped {
		e.touchQueue(now, ni, n)
		next := n.q.Pop()
		e.queued--
		nsh := int(e.subs.items[next].shard)
		e.touchShardQueue(now, nsh)
		e.shardQ[nsh]--
		e.start(now, next, n, now-e.arrived[next])
	}
}

// coreChange is an action's change of a node's cores, for the capacity series.
type coreChange struct {
	at          Time
	node, cores int
}

// capacity fills Result.NodeCapacity: the core time each of the model's nodes had in
// each window, from its cores and the actions that changed them.
func (r *recorder) capacity(nodes []Node) {
	res := r.res
	nN := len(res.Nodes)
	for n := range res.Nodes {
		cores := Time(nodes[n].Cores)
		ci := 0
		for ci < len(r.coreLog) && r.coreLog[ci].node != n {
			ci++
		}
		for w := 0; w < res.Windows; w++ {
			t := Time(w) * res.Window
			end := t + res.WindowSpan(w)
			var c Time
			for ci < len(r.coreLog) && r.coreLog[ci].at < end {
				ch := r.coreLog[ci]
				if ch.at > t {
					c += cores * (ch.at - t)
					t = ch.at
				}
				cores = Time(ch.cores)
				for ci++; ci < len(r.coreLog) && r.coreLog[ci].node != n; ci++ {
				}
			}
			res.NodeCapacity[w*nN+n] = c + cores*(end-t)
		}
	}
}

// nodeTotals derives the node series not recorded as the run went (the busy series from
// the shards', when no shard moved) and each node's totals, from the model's nodes and
// their state at the end.
func (r *recorder) nodeTotals(model []Node, nodes []nodeState) {
	res := r.res
	nS, nN := len(res.Shards), len(res.Nodes)
	if !r.trackNode && r.ring == nil {
		for w := 0; w < res.Windows; w++ {
			for s := 0; s < nS; s++ {
				res.NodeBusy[w*nN+res.Shards[s].Node] += res.ShardBusy[w*nS+s]
			}
		}
	}
	r.capacity(model)
	for n := range res.Nodes {
		mq := int32(0)
		for w := 0; w < res.Windows; w++ {
			res.Nodes[n].Busy += res.NodeBusy[w*nN+n]
			mq = max(mq, res.NodeMaxQueue[w*nN+n])
		}
		res.Nodes[n].MaxQueue = int(mq)
		res.Nodes[n].Cores = nodes[n].cores
	}
}
