package operator

import (
	"fmt"
	"strings"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The operator's keys of an [[actions]] entry (docs/scenario.md, "[[actions]]"): node with
// cores or queue_limit, stream with limit, declared and checked here. cores, queue_limit and
// limit are settings an action changes (scenario.RegisterActionSetting), first among them
// all (rank), resolved in the actions' order into an Action of the operator's own, which
// New reads; node and stream say what they apply to, checked on every action before any
// setting's own checks (Target).

var (
	nodeKey = scenario.ActionKey[int]("node", "none",
		"with `cores` or `queue_limit`: the node (0 to nodes-1) the action changes, described in [`[[actions]]`](#actions) above")
	coresKey = scenario.ActionKey[int]("cores", "none",
		"with `node`: the node's new number of cores (at least 1), described in [`[[actions]]`](#actions) above (docs/mitigations.md, \"Timed actions\")")
	queueLimitKey = scenario.ActionKey[int]("queue_limit", "none",
		"with `node`: the node's new queue limit (0: unbounded), described in [`[[actions]]`](#actions) above (docs/mitigations.md, \"Timed actions\")")
	streamKey = scenario.ActionKey[string]("stream", "none",
		"with `limit`: the name of the stream whose client limit the action changes, described in [`[[actions]]`](#actions) above")
	limitKey = scenario.ActionKey[scenario.LimitSetting]("limit", "none",
		"with `stream`: the stream's new client limit, a table as a stream's `limit`, or `\"none\"` to lift it, described in [`[[actions]]`](#actions) above (docs/mitigations.md, \"Timed actions\")")
)

// rank puts the operator's settings first among those actions change, in the problems
// and in the hint of an action that says nothing to do (scenario.ActionSetting).
const rank = 10

func init() {
	scenario.RegisterActionSetting(scenario.ActionSetting{
		Keys:  []string{coresKey.Name(), queueLimitKey.Name(), limitKey.Name()},
		Hints: []string{"node with cores or queue_limit", "stream with limit"},
		Rank:  rank, Target: target, Resolve: resolve, Text: text,
	})
	scenario.RegisterLoadChange(acts)
}

// acts reports whether s has timed actions, which change the cluster during the run: the
// offered loads computed without running are not the loads it meets
// (scenario.Resolved.LoadsChange).
func acts(s *scenario.Resolved) bool { return len(s.Actions) > 0 }

// nodeSetting reports whether what, the setting an action changes, is one of a node.
func nodeSetting(what string) bool { return what == coresKey.Name() || what == queueLimitKey.Name() }

// target checks an action's node, required with cores and queue_limit and refused with any
// other setting, and its stream, required with limit and refused with any other.
func target(c *scenario.Checker, s *scenario.Resolved, key, what string, a *scenario.Action) {
	node, given := nodeKey.In(a.Ext)
	switch {
	case nodeSetting(what) && !given:
		c.Add(key+".node", "required with %s: the node's id, 0 to nodes-1", what)
	case nodeSetting(what) && (node < 0 || (len(s.Nodes) > 0 && node >= len(s.Nodes))):
		c.Add(key+".node", "no such node: ids run from 0 to %d (got %d)", len(s.Nodes)-1, node)
	case !nodeSetting(what) && given:
		c.Add(key+".node", "applies only to cores and queue_limit actions")
	}
	stream, _ := streamKey.In(a.Ext) // "" stands for none, as it names no stream
	switch limit := what == limitKey.Name(); {
	case limit && stream == "":
		c.Add(key+".stream", "required with limit: the name of the stream whose client is limited")
	case limit && s.StreamIndex(stream) < 0:
		c.Add(key+".stream", "no such stream %q (have %s)", stream, strings.Join(s.StreamNames(), ", "))
	case !limit && stream != "":
		c.Add(key+".stream", "applies only to limit actions")
	}
}

// resolve checks the setting an action changes into an Action, act's Value; target has
// checked its node or stream.
func resolve(c *scenario.Checker, s *scenario.Resolved, key string, a *scenario.Action, act *scenario.ActionSpec) {
	node, _ := nodeKey.In(a.Ext)
	var op Action
	switch act.Setting {
	case coresKey.Name():
		n, _ := coresKey.In(a.Ext)
		if n < 1 {
			c.Add(key+".cores", "must be at least 1 (got %d)", n)
		}
		op = Action{Change: Cores, Node: node, Cores: n}
	case queueLimitKey.Name():
		n, _ := queueLimitKey.In(a.Ext)
		if n < 0 {
			c.Add(key+".queue_limit", "must not be negative (got %d); 0 is unbounded", n)
		}
		op = Action{Change: QueueLimit, Node: node, QueueLimit: n}
	case limitKey.Name():
		l, _ := limitKey.In(a.Ext)
		stream, _ := streamKey.In(a.Ext)
		op = Action{Change: ClientLimit, Stream: s.StreamIndex(stream), Limit: c.ClientLimit(key+".limit", l)}
		act.Client = true // the client's: its requests reach the nodes a network delay later
	}
	act.Value = op
}

// text says what an action changes, from what, for the timeline; nodes are the nodes'
// settings before it, which it updates.
func text(s *scenario.Resolved, nodes []sim.Node, act *scenario.ActionSpec) string {
	a := act.Value.(Action)
	switch a.Change {
	case Cores:
		text := fmt.Sprintf("node %d: %d → %d cores", a.Node, nodes[a.Node].Cores, a.Cores)
		nodes[a.Node].Cores = a.Cores
		return text
	case QueueLimit:
		text := fmt.Sprintf("node %d: queue limit %s → %s", a.Node, queueLimitText(nodes[a.Node].QueueLimit), queueLimitText(a.QueueLimit))
		nodes[a.Node].QueueLimit = a.QueueLimit
		return text
	}
	return s.Streams[a.Stream].Name + ": " + limitText(a.Limit)
}

func queueLimitText(n int) string {
	if n == 0 {
		return "unbounded"
	}
	return scenario.GroupDigits(float64(n))
}

// limitText says what a client limit is: "limit 9,000/s, overflow queued".
func limitText(l *sim.Limit) string {
	if l == nil {
		return "limit lifted"
	}
	t := "limit " + scenario.GroupDigits(l.Rate) + "/s"
	if l.Burst > 1 {
		t += ", burst " + scenario.GroupDigits(float64(l.Burst))
	}
	if l.Queue {
		return t + ", overflow queued"
	}
	return t + ", overflow rejected"
}
