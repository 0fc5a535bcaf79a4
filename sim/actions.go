package sim

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
	case Switch, AddNodes, Migrate: // the mechanism applies it itself (its Setting read its actions)
	}
	e.note(a.At, a.Text)
}

// scheduleActions puts every action due within the run on the heap. A client-side
// setting changes at the client: the requests it issues from At on reach the nodes,
// where the engine handles them, a network delay later.
func (e *engine) scheduleActions() {
	for i, a := range e.m.Actions {
		if a.At >= e.m.Duration {
			continue
		}
		at := a.At
		if a.Kind == SetLimit || a.Kind == Switch {
			at += e.m.Network
		}
		e.h.pushKind(at, int32(i), evAction)
	}
}

// note adds an action's line, text at t, to the run's timeline of events.
func (e *engine) note(t Time, text string) {
	e.res.Events = append(e.res.Events, Event{At: t, Kind: EventAction, Shard: -1, Text: text})
}

// actionPlan is Model.Actions, applied at their times.
type actionPlan struct{ noHooks }

// handle applies an action.
func (actionPlan) handle(e *engine, ev event) { e.act(ev.at, ev.idx) }
