// Package operator is the operator's timed actions (docs/mitigations.md, "Timed
// actions"): a node's cores or queue limit, or a stream's client-side rate limit, changed
// during the run, each noted in the alert timeline. The actions that other mechanisms
// apply themselves (a cache switched on or off, nodes that join, a migration's start) are
// only noted here, from what scenario resolved of them (scenario.ActionSpec: the time,
// the text, whether a client's setting takes effect a network delay later). The actions'
// keys of its own (an [[actions]] entry's node with cores or queue_limit, stream with
// limit) are declared, checked and resolved in keys.go; compile builds the setting (New),
// last among Model.Mechanisms.
package operator

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// Change says what an Action changes.
type Change uint8

const (
	Noted       Change = iota // nothing: another mechanism applies it (its Setting carries it); it is only noted
	Cores                     // Node's cores become Cores
	QueueLimit                // Node's queue limit becomes QueueLimit (0: unbounded)
	ClientLimit               // Stream's client limit becomes Limit (nil: none)
)

// Action is a timed action: at At, one setting changes, and Text is noted in the timeline.
type Action struct {
	At         sim.Time
	Change     Change
	Node       int
	Cores      int
	QueueLimit int
	Stream     int
	Limit      *sim.Limit
	// Client says the setting is a client's (a client limit, a cache switched on or
	// off): it is applied, and noted, a network delay after At.
	Client bool
	// Text says what was done, for the alert timeline.
	Text string
}

// Actions is a run's operator actions, in time order (ties in the order written): a
// sim.Setting. Each is applied at its time, a client's a network delay later, when the
// requests its client sends from then on reach the nodes; an action at or after the end
// of the run never happens.
type Actions []Action

// New is the setting of a scenario's actions, nil for none: the operator's own apply
// what they change, the others' are only noted. Each limit is a fresh copy, as a model
// owns what it points to.
func New(specs []scenario.ActionSpec) Actions {
	var as Actions
	for _, sp := range specs {
		a, _ := sp.Value.(Action) // another mechanism's: Noted
		if a.Limit != nil {
			l := *a.Limit
			a.Limit = &l
		}
		a.At, a.Client, a.Text = sp.At, sp.Client, sp.Text
		as = append(as, a)
	}
	return as
}

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
		if a.Change == ClientLimit {
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
		if a.Client {
			at += c.Network()
		}
		c.Schedule(at, int32(i), evAction)
	}
}

// Handle applies action i at now and notes it, at its own time, in the timeline.
func (as Actions) Handle(c sim.Core, now sim.Time, i int32) {
	a := &as[i]
	switch a.Change {
	case Cores:
		c.SetCores(now, a.Node, a.Cores)
	case QueueLimit:
		c.SetQueueLimit(a.Node, a.QueueLimit)
	case ClientLimit:
		c.SetClientLimit(now, a.Stream, a.Limit)
	case Noted: // the mechanism applies it itself (its Setting carries it)
	}
	c.Note(a.At, a.Text)
}
