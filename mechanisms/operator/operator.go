// Package operator is the operator's timed actions (docs/mitigations.md, "Operator
// actions"): a node's cores or queue limit, or a stream's client-side rate limit, changed
// during the run, each noted in the alert timeline. The actions that other mechanisms
// apply themselves (a cache switched on or off, nodes that join, a migration's start) are
// only noted here. The actions' keys are still resolved in scenario (scenario/mitigate.go), and
// compile builds the setting, last among Model.Mechanisms.
package operator

import "github.com/shardsim/shardsim/sim"

// Actions is a run's operator actions, in time order (ties in the order written): a
// sim.Setting. Each is applied at its time, a client-side one (a client limit, a switch)
// a network delay later, when the requests its client sends from then on reach the
// nodes; an action at or after the end of the run never happens.
type Actions []sim.Action

// Note is "": explain says what the actions leave out itself.
func (Actions) Note() string { return "" }

// Waiter is 0: the actions hold nothing back themselves.
func (Actions) Waiter() float64 { return 0 }

// Couples keeps a run with timed actions on one engine: they change the cluster during the
// run.
func (Actions) Couples() string { return "timed actions change the cluster during the run" }

// evAction is an action's event: idx, its index in Actions.
var evAction = sim.NewEventKind()

// Init says which streams' client limits an action may set, before the streams are set up.
func (as Actions) Init(c sim.Core) {
	for _, a := range as {
		if a.Kind == sim.SetLimit {
			c.MayLimit(a.Stream, a.Limit != nil && a.Limit.Queue)
		}
	}
}

// On schedules every action due within the run.
func (as Actions) On(c sim.Core) {
	c.Register(as, evAction)
	for i, a := range as {
		if a.At >= c.Duration() {
			continue
		}
		at := a.At
		if a.Kind == sim.SetLimit || a.Kind == sim.Switch {
			at += c.Network()
		}
		c.Schedule(at, int32(i), evAction)
	}
}

// Handle applies action i at now and notes it, at its own time, in the timeline.
func (as Actions) Handle(c sim.Core, now sim.Time, i int32) {
	a := &as[i]
	switch a.Kind {
	case sim.SetCores:
		c.SetCores(now, a.Node, a.Cores)
	case sim.SetQueueLimit:
		c.SetQueueLimit(a.Node, a.QueueLimit)
	case sim.SetLimit:
		c.SetClientLimit(now, a.Stream, a.Limit)
	case sim.Switch, sim.AddNodes, sim.Migrate: // the mechanism applies it itself (its Setting carries it)
	}
	c.Note(a.At, a.Text)
}
