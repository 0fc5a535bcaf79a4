package sim

// This file holds the replicas of Model.Replicas: follower k of a shard lives on node
// (leader + k) mod nodes, applies every write the leader has applied, and, with
// Model.ReadAny, serves reads as the leader does. Its state is the model's: the core routes
// through it on the request path (send, done).

// replicate sends a write the leader has applied to the shard's followers, which apply it
// at the stream's apply cost; nobody waits for them.
func (e *engine) replicate(now Time, sub *subreq) {
	st := &e.streams[e.reqs.items[sub.req].stream]
	leader := int(e.shardNode[sub.shard])
	for k := 1; k <= e.m.Replicas; k++ {
		si := e.subs.take()
		e.subs.items[si] = subreq{req: followerReq, shard: sub.shard, node: int16((leader + k) % e.nNodes), parts: sub.parts,
			service: e.serviceTime(st, st.s.ApplyCost, sub.parts)}
		e.reach(now, si)
	}
}

// anyCopy returns the node of a copy of a shard whose leader is on node, drawn uniformly
// among the leader and its followers: where a read with ReadAny goes.
func (e *engine) anyCopy(node int32) int32 {
	if k := e.aux.IntN(e.m.Replicas + 1); k > 0 {
		node = int32((int(node) + k) % e.nNodes)
	}
	return node
}
