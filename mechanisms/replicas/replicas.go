// Package replicas is the shards' followers (docs/mitigations.md, "Followers"): follower k
// of a shard lives on the k-th node after its leader's, applies every write the leader has
// applied, at its stream's apply cost (Replicas.ApplyCost) and without the client
// waiting, and, with read_from = "any", serves reads as the leader does. Its keys
// (cluster.replicas, read_from, apply_cost) are declared, checked and resolved here
// (keys.go), and compile builds the setting, first among Model.Mechanisms.
package replicas

import "github.com/shardsim/shardsim/sim"

// Replicas is a run's followers: a sim.Setting.
type Replicas struct {
	// Followers is the number of followers of every shard, fewer than the nodes.
	Followers int
	// ReadAny sends each read's and scan's visit to the leader or one of its followers,
	// drawn uniformly among them with the engine's own random numbers.
	ReadAny bool
	// ApplyCost is the CPU time a follower spends applying one partition of a write,
	// stream by stream (missing or 0: the stream's own cost).
	ApplyCost []sim.Time
}

// Note is "": explain says what followers change itself.
func (Replicas) Note() string { return "" }

// Waiter is 0: followers hold nothing back.
func (Replicas) Waiter() float64 { return 0 }

// Couples keeps a run with followers on one engine: a write on one node is applied on
// others.
func (Replicas) Couples() string { return "replicas couple the nodes" }

// On gives the shards their followers: the writes' streams (and with ReadAny the reads')
// take a request slot, so that their writes' ends are heard and their reads routed.
func (r Replicas) On(c sim.Core) {
	c.SetReplicas(r.Followers)
	for i := range c.Streams() {
		if w := c.Op(i) == sim.Write; (w && r.Followers > 0) || (!w && r.ReadAny) {
			c.Slotted(i)
		}
	}
	if r.Followers > 0 {
		c.WatchWrites(r)
	}
	if r.ReadAny {
		c.RouteReads(r)
	}
}

// Wrote sends a write the leader has applied at now to the shard's followers, which
// apply it; nobody waits for them.
func (r Replicas) Wrote(c sim.Core, now sim.Time, i int, sh, parts int32) {
	leader, nodes := c.ShardNode(int(sh)), c.Nodes()
	var cost sim.Time
	if i < len(r.ApplyCost) {
		cost = r.ApplyCost[i]
	}
	for k := 1; k <= r.Followers; k++ {
		c.Follow(now, i, sh, (leader+k)%nodes, parts, cost)
	}
}

// ReadNode is the node of a copy of a shard whose leader is on node leader, drawn
// uniformly among the leader and its followers.
func (r Replicas) ReadNode(c sim.Core, leader int32) int32 {
	if k := c.Aux().IntN(r.Followers + 1); k > 0 {
		leader = int32((int(leader) + k) % c.Nodes())
	}
	return leader
}
