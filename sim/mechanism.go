package sim

import "slices"

// mechanism is one of the engine's optional parts: a cache, row locks, partition limits,
// the client's timeouts and rate limit, closed-loop clients, a migration, a rebalance,
// shard splits, scheduled actions. It owns its state, and meets the core at the points
// below, which are all the core knows of it; the hooks on the request path (arrival,
// admission, completion) are direct calls through the engine's typed field of the
// mechanism, which is nil when it is off (doc.go lists them).
type mechanism interface {
	// handle runs ev, an event of a kind the mechanism registered, at ev.at (the engine's
	// now).
	handle(e *engine, ev event)
	// windowEnd runs when window w has ended: t, the time of the first event after it,
	// is in a later window (or past the end of the run). Only for a mechanism registered
	// with perWindow.
	windowEnd(e *engine, t Time, w int)
	// wrapUp puts what the mechanism recorded into the Result when the run ends, before
	// the core derives the totals of the series.
	wrapUp(e *engine)
}

// noHooks gives a mechanism without a window hook or a wrap-up the methods it does not
// need.
type noHooks struct{}

func (noHooks) windowEnd(*engine, Time, int) {}
func (noHooks) wrapUp(*engine)               {}

// registry holds the mechanisms that are on: on[k] handles the events of kind k (every
// kind but evDone, the core's), all are wrapped up in the order they registered, and
// windowed see the end of every window.
type registry struct {
	on       [evKinds]mechanism
	all      []mechanism
	windowed []mechanism
}

// register puts mechanism m on, for the events of the given kinds; with perWindow it sees
// the end of every window. A kind has one mechanism.
func (g *registry) register(m mechanism, perWindow bool, kinds ...evKind) {
	for _, k := range kinds {
		if k == evDone || g.on[k] != nil {
			panic("sim: event kind registered twice")
		}
		g.on[k] = m
	}
	g.all = append(g.all, m)
	if perWindow {
		g.windowed = append(g.windowed, m)
	}
}

// rare handles an event other than the end of a subrequest's service: its mechanism's.
func (e *engine) rare(ev event) {
	e.on[ev.kind].handle(e, ev)
}

var (
	_ mechanism = clientSide{}
	_ mechanism = closedLoop{}
	_ mechanism = actionPlan{}
	_ mechanism = (*rowLocks)(nil)
	_ mechanism = (*splits)(nil)
	_ mechanism = (*migState)(nil)
	_ mechanism = (*rebState)(nil)
)

// newMoves sets up the mechanisms that move shards between layouts or nodes, a migration
// and a rebalance; a migration's new layout extends the shard ids.
func (e *engine) newMoves() {
	m := e.m
	if m.Migration != nil {
		e.mig = newMig(m, e.nShards)
		e.mig.e = e
		e.nShards += e.mig.nNew
		e.register(e.mig, false, evBackfill, evBackfillWrite, evCutover, evVerified, evOutbox)
	}
	if m.Rebalance != nil {
		e.reb = newReb(m)
		e.register(e.reb, false, evRebalance)
	}
}

// newMechanisms turns on the mechanisms the model asks for that have no shards or nodes
// of their own to set up: the cache, partition limits, shard splits, the client's
// timers and limits, closed-loop clients and scheduled actions. (Row locks are turned on
// by the first stream that takes them, see initStream.)
func (e *engine) newMechanisms() {
	m := e.m
	if m.Cache != nil {
		e.cache = newCache(m.Cache)
	}
	if m.Limits != nil {
		e.limits = newPartitionLimits(m.Limits, len(m.ShardNode), e.nShards)
	}
	if m.Splitter != nil {
		e.split = newSplits(e, m)
		e.register(e.split, true, evMove)
	}
	if clientTimers(m) {
		e.register(clientSide{}, false, evTimer, evTimers, evSend, evRelease)
	}
	if slices.ContainsFunc(m.Streams, func(s Stream) bool { return s.Clients > 0 }) {
		e.register(closedLoop{}, false, evIssue)
	}
	if len(m.Actions) > 0 {
		e.register(actionPlan{}, false, evAction)
	}
}
