package sim

import (
	"fmt"

	"github.com/shardsim/shardsim/internal/waitlist"
)

// nodeTable is the nodes' state: their cores and queues, and what the node series need
// beyond the shards' (issue 37 partitions the nodes across workers: a node's state is
// its own).
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
func (e *engine) touchQueue(now Time, ni int, n *nodeState) {
	if now >= e.wStart && now < e.wEnd && e.touchW <= n.lastW {
		return // now is in the current window, which the node has seen
	}
	e.carryQueue(now, ni, n)
}

// carryQueue is touchQueue's work.
func (e *engine) carryQueue(now Time, ni int, n *nodeState) {
	e.carry(now, e.res.NodeMaxQueue, e.nNodes, -1, ni, &n.lastW, int32(n.q.Len()))
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

// capacity fills Result.NodeCapacity: the core time each node had in each window, from its
// cores and the actions that changed them.
func (e *engine) capacity() {
	r := e.res
	for n := range r.Nodes {
		cores := Time(e.m.Nodes[n].Cores)
		ci := 0
		for ci < len(e.coreLog) && e.coreLog[ci].node != n {
			ci++
		}
		for w := 0; w < r.Windows; w++ {
			t := Time(w) * r.Window
			end := t + r.WindowSpan(w)
			var c Time
			for ci < len(e.coreLog) && e.coreLog[ci].at < end {
				ch := e.coreLog[ci]
				if ch.at > t {
					c += cores * (ch.at - t)
					t = ch.at
				}
				cores = Time(ch.cores)
				for ci++; ci < len(e.coreLog) && e.coreLog[ci].node != n; ci++ {
				}
			}
			r.NodeCapacity[w*e.nNodes+n] = c + cores*(end-t)
		}
	}
}

// nodeTotals derives the node series not recorded as the run went (the busy series from
// the shards', when no shard moved) and each node's totals.
func (e *engine) nodeTotals() {
	r := e.res
	nS := len(r.Shards)
	if !e.trackNode && e.ring == nil {
		for w := 0; w < r.Windows; w++ {
			for s := 0; s < nS; s++ {
				r.NodeBusy[w*e.nNodes+r.Shards[s].Node] += r.ShardBusy[w*nS+s]
			}
		}
	}
	e.capacity()
	for n := range r.Nodes {
		mq := int32(0)
		for w := 0; w < r.Windows; w++ {
			r.Nodes[n].Busy += r.NodeBusy[w*e.nNodes+n]
			mq = max(mq, r.NodeMaxQueue[w*e.nNodes+n])
		}
		r.Nodes[n].MaxQueue = int(mq)
		r.Nodes[n].Cores = e.nodes[n].cores
	}
}
