package sim

import "slices"

// registry holds what the Settings of Model.Mechanisms registered: on[k] handles the
// events of kind k (a kind made by NewEventKind: the kinds below evFixed are the core's, see
// engine.rare), all are the Handlers in the order they registered, each wrapped up in that
// order when it is a WrapUpper, and windowed are told of the end of every window.
type registry struct {
	on       [evKinds]Handler
	all      []Handler
	windowed []WindowWatcher
}

// register has h handle the events of the given kinds. A kind has one Handler, and the
// core's kinds have none.
func (g *registry) register(h Handler, kinds ...evKind) {
	for _, k := range kinds {
		if k < evFixed || g.on[k] != nil {
			panic("sim: event kind registered twice, or one of the core's")
		}
		g.on[k] = h
	}
	g.all = append(g.all, h)
}

// ownShards adds the shards of the mechanisms of Model.Mechanisms that have shards of their
// own (ShardOwner) after the table's, a migration's new layout's among them; called by
// newEngine before the result arrays are sized, with the table's shard ids counted.
func (e *engine) ownShards() {
	e.table = int32(e.nShards)
	for _, s := range e.m.Mechanisms {
		if o, ok := s.(ShardOwner); ok {
			o.OwnShards(Core{e})
		}
	}
}

// initSettings tells the Settings of Model.Mechanisms that say what the streams must be
// ready for (Initer) to say so, before the streams are set up.
func (e *engine) initSettings() {
	for _, s := range e.m.Mechanisms {
		if i, ok := s.(Initer); ok {
			i.Init(Core{e})
		}
	}
}

// gates are the hooks of the mechanisms turned on by a Setting (all empty when none is).
type gates struct {
	admits     []SubAdmit // before atNode, for every shard: each admits the shards it limits
	atNode     []NodeGate
	firstGates int     // how many of atNode came first (GateNodesFirst)
	passed     []uint8 // by subrequest slot: how many of atNode it has passed, while it is among them
	reqGated   []uint8 // by request slot: how many of its stream's gates it has passed
	watches    []SubWatcher
	starts     []ServiceStart
	ends       []SubEnd
	endHolds   int        // how many of ends EndSubs put there, first (the rest, EndSubsLast's)
	copier     Copier     // the mechanism whose copy batches end at the core (Core.CopyBy), nil when none
	applier    Applier    // the mechanism whose writes nobody waits for end at the core (Core.ApplyBy)
	wrote      WriteDone  // hears of each client write's end (Core.WatchWrites), nil when none
	readAt     ReadRouter // chooses the node of each read subrequest (Core.RouteReads), nil when none
	// The mechanism told of the CPU of the writes and copies the cores take (Core.WatchWork),
	// and of every request's outcome reaching its client (Core.WatchEnds); nil when none.
	work    WorkWatcher
	ended   EndWatcher
	endHeld []uint8 // by subrequest slot: 1 + the SubEnd hook that holds it, while one does
	// admitting: something may turn a subrequest away or hold it at its node before the
	// queue (a SubAdmit, a partition's limit, a node gate): reach calls admitAtNode. Set
	// once every mechanism is on (startSettings).
	admitting bool
}

// gateStream puts gate g before the sends of stream i's requests; the stream's requests
// then take the general path (a request slot, send), and keep their visits with them for
// a send that comes later.
func (e *engine) gateStream(i int, g RequestGate) {
	st := &e.streams[i]
	st.gates = append(st.gates, g)
	st.plain, st.keep = false, true
}

// gateNodes puts g at every node, after the gates put there before it.
func (gs *gates) gateNodes(g NodeGate) {
	gs.atNode = append(gs.atNode, g)
}

// gateNodesFirst puts g at every node before the gates of gateNodes, after those put there
// by gateNodesFirst before it.
func (gs *gates) gateNodesFirst(g NodeGate) {
	gs.atNode = slices.Insert(gs.atNode, gs.firstGates, g)
	gs.firstGates++
}

// watchSubs has w told of every new subrequest, and of every request issued into a slot.
func (gs *gates) watchSubs(w SubWatcher) {
	gs.watches = append(gs.watches, w)
}

// endSub runs client subrequest si, whose service ended at now, through the SubEnd hooks
// from the k-th on, and reports whether all let it complete now (false: one holds it, and
// passes it on later with Core.Finish). A subrequest that nobody waits for (noReq: a
// Follow's, a Copy's batch, an Apply's write, a detached one) completes at once.
func (e *engine) endSub(now Time, si int32, k int) bool {
	if e.subs.items[si].req == noReq {
		return true
	}
	for ; k < len(e.ends); k++ {
		if !e.ends[k].End(Core{e}, now, si) {
			for int(si) >= len(e.endHeld) {
				e.endHeld = append(e.endHeld, 0)
			}
			e.endHeld[si] = uint8(k + 1)
			return false
		}
	}
	return true
}

// startExtra is the service the ServiceStart hooks add to subrequest si, which a core of
// node n takes at now.
func (e *engine) startExtra(now Time, si int32, n *nodeState) Time {
	var extra Time
	node, queued := int(e.subs.items[si].node), n.q.Len()
	for _, h := range e.starts {
		extra += h.Start(Core{e}, now, node, si, queued)
	}
	return extra
}

// finishHeld passes subrequest si, whose completion a SubEnd hook held until now, on
// through the hooks after that one, and completes it if none holds it again.
func (e *engine) finishHeld(now Time, si int32) {
	k := int(e.endHeld[si])
	e.endHeld[si] = 0
	if e.endSub(now, si, k) {
		e.complete(now, si)
	}
}

// enterGates runs subrequest si, at its node at now, through the node gates it has not
// passed yet, and reports whether all let it go on (false: one holds it).
func (e *engine) enterGates(now Time, si int32) bool {
	for int(si) >= len(e.passed) {
		e.passed = append(e.passed, 0)
	}
	for k := int(e.passed[si]); k < len(e.atNode); k++ {
		e.passed[si] = uint8(k + 1)
		if !e.atNode[k].Enter(Core{e}, now, si) {
			return false
		}
	}
	e.passed[si] = 0 // through: the slot's next subrequest starts at the first gate
	return true
}

// amongGates reports whether subrequest si is on its way through the node gates (one held
// it, and passed it on): it has passed the partition limit before them.
func (gs *gates) amongGates(si int32) bool {
	return int(si) < len(gs.passed) && gs.passed[si] > 0
}

// pass puts subrequest si, which a node gate held until now, on its way again: through the
// gates after that one, then to the node's queue or a core.
func (e *engine) pass(now Time, si int32) {
	e.reach(now, si)
}

// sendGated runs request ri of stream st, which would reach its nodes at now, through
// the stream's gates from the k-th on, then sends it as issueSlotted does (through the
// client's rate limit, if any); a gate that holds it sends it on later (sendHeld).
func (e *engine) sendGated(now Time, ri int32, st *streamState, k int) {
	for int(ri) >= len(e.reqGated) {
		e.reqGated = append(e.reqGated, 0)
	}
	for ; k < len(st.gates); k++ {
		e.reqGated[ri] = uint8(k + 1)
		if !st.gates[k].Enter(Core{e}, now, ri) {
			return
		}
	}
	if st.limit != nil {
		e.admit(now, ri)
		return
	}
	e.send(now, ri, e.visits[ri])
}

// sendHeld sends request ri, which a request gate held until its first attempt could
// reach the nodes at now: through the stream's later gates, then on as issueSlotted would.
func (e *engine) sendHeld(now Time, ri int32) {
	st := &e.streams[e.reqs.items[ri].stream]
	e.sendGated(now, ri, st, int(e.reqGated[ri]))
}

// leaveGates tells stream st's gates that request ri has ended, its outcome reaching the
// client at t.
func (e *engine) leaveGates(st *streamState, t Time, ri int32) {
	for _, g := range st.gates {
		g.Leave(Core{e}, t, ri)
	}
}

// watchIssue tells the watchers of request ri of stream st, just issued into its slot.
func (e *engine) watchIssue(st *streamState, ri int32) {
	for _, w := range e.watches {
		w.Issue(Core{e}, st.index, ri)
	}
}

// watchNewSub tells the watchers of new subrequests of si, just made for stream st.
func (e *engine) watchNewSub(st *streamState, si int32) {
	for _, w := range e.watches {
		w.NewSub(Core{e}, st.index, si)
	}
}

// startSettings turns on the mechanisms of Model.Mechanisms, the last to be turned on, and
// notes whether reach has anything to admit by.
func (e *engine) startSettings() {
	for _, s := range e.m.Mechanisms {
		s.On(Core{e})
	}
	e.admitting = len(e.admits) > 0 || len(e.atNode) > 0
	if e.applier != nil && len(e.admits) > 0 {
		panic("sim: a mechanism's writes nobody waits for (an Applier, a migration's outbox) cannot be combined with a mechanism that refuses subrequests at their nodes (a SubAdmit)")
	}
}
