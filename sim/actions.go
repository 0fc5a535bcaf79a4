package sim

// coreChange is an action's change of a node's cores, for the capacity series.
type coreChange struct {
	at          Time
	node, cores int
}

// act applies operator action i at now.
func (e *engine) act(now Time, i int32) {
	a := &e.m.Actions[i]
	switch a.Kind {
	case SetCores:
		n := &e.nodes[a.Node]
		n.cores = a.Cores
		e.coreLog = append(e.coreLog, coreChange{at: now, node: a.Node, cores: a.Cores})
		e.startQueued(now, a.Node, n) // more cores take waiting work at once
	case SetQueueLimit:
		e.nodes[a.Node].limit = a.QueueLimit
	case SetLimit:
		e.relimit(now, a.Stream, a.Limit)
	case SetCache:
		if e.cache != nil {
			e.cache.on = a.CacheOn
		}
	case Migrate:
		e.migStart(now)
	case AddNodes:
		e.addNodes(now)
	}
	e.res.Events = append(e.res.Events, Event{At: a.At, Kind: EventAction, Shard: -1, Text: a.Text})
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
