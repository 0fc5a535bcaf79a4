package eventloop

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The event loop's key ([cluster] wakeup_cost: docs/mitigations.md, "Event-loop
// wake-ups"), its checks, and the setting it turns into (WakeUp, eventloop.go).

var wakeupCostKey = scenario.ClusterKey[scenario.Duration]("wakeup_cost", "`\"0s\"` (off)",
	"the CPU a node's event loop pays each time it wakes up (a duration up to 1s, e.g. `\"40us\"`), as Redis, memcached or an nginx worker does: a wake-up serves every request waiting in the node's queue when it starts, and its cost is added to the service of the first, beside each request's own `cost`, so a request pays it whole at low load and a share of it as requests queue (docs/mitigations.md, \"Event-loop wake-ups\")")

// maxWakeupCost: a wake-up costs micro- to milliseconds of CPU; a second is already absurd.
const maxWakeupCost = sim.Second

func init() { scenario.RegisterMechanism(resolveWakeupCost) }

// resolveWakeupCost turns the event loop on when [cluster] wakeup_cost is given and
// positive; 0 leaves it off.
func resolveWakeupCost(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	d, on := wakeupCostKey.In(f.Cluster.Ext)
	if !on {
		return
	}
	set := WakeUp{Cost: c.Duration("cluster.wakeup_cost", d, "", 0)}
	if set.Cost > maxWakeupCost {
		c.Add("cluster.wakeup_cost", "must be at most 1s (got %q): a wake-up costs micro- to milliseconds of CPU", d.Text)
		return
	}
	if set.Cost > 0 {
		s.Mechanisms = append(s.Mechanisms, set)
	}
}
