package cache

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The read cache's keys: the [cache] table (docs/scenario.md, "[cache]"), declared here as
// a table of the scenario's top level, and an action's `cache = true | false`, a setting
// an action changes (scenario.RegisterActionSetting), resolved in the actions' order into
// a Switch, which the resolver checks has a cache to switch. The resolver turns them into
// the cache's setting (Cache, cache.go); the operator's setting notes the switches
// (mechanisms/operator).

// Table is the [cache] table as written.
type Table struct {
	Capacity             *int              `toml:"capacity"`
	TTL                  scenario.Duration `toml:"ttl"`
	Jitter               *float64          `toml:"jitter"`
	HitCost              scenario.Duration `toml:"hit_cost"`
	SingleFlight         *bool             `toml:"single_flight"`
	StaleWhileRevalidate scenario.Duration `toml:"stale_while_revalidate"`
	Enabled              *bool             `toml:"enabled"`
	Streams              []string          `toml:"streams"`
}

var tableKey = scenario.FileKey[Table]("cache", "none",
	"a table: the read-through cache in front of the database, shared by the read streams that use it: its keys are listed in [`[cache]`](#cache) above (docs/mitigations.md, \"Cache\")")

// Bounds of the keys.
const (
	maxCapacity    = 50_000_000
	defaultHitCost = "0.1ms"
	maxHitCost     = sim.Hour               // as every cost
	maxAge         = 10_000 * 24 * sim.Hour // as every duration
)

var switchKey = scenario.ActionKey[bool]("cache", "none",
	"`true` turns the cache on, `false` off, at `at`: needs a [`[cache]`](#cache) table; described in [`[[actions]]`](#actions) above")

// rank puts the cache's setting after the operator's among those actions change, in the
// problems and in the hint of an action that says nothing to do.
const rank = 20

func init() {
	scenario.RegisterMechanism(resolveCache)
	scenario.RegisterActionSetting(scenario.ActionSetting{
		Keys: []string{switchKey.Name()}, Hints: []string{"cache = true | false"}, Rank: rank,
		Resolve: resolveSwitch, Text: switchText,
	})
	scenario.RegisterLoadChange(answers)
}

// answers reports whether s has a cache: a hit never reaches the nodes, so they see less
// than the offered loads computed without running (scenario.Resolved.LoadsChange).
func answers(s *scenario.Resolved) bool {
	return slices.ContainsFunc(s.Mechanisms, func(x sim.Setting) bool { _, ok := x.(Cache); return ok })
}

// resolveSwitch reads an action's cache into a Switch, applied by the client a network
// delay after its time; resolveCache checks that there is a cache to switch.
func resolveSwitch(_ *scenario.Checker, _ *scenario.Resolved, _ string, a *scenario.Action, act *scenario.ActionSpec) {
	on, _ := switchKey.In(a.Ext)
	act.Value, act.Client = Switch{At: act.At, On: on}, true
}

// switchText says what a switch does, for the timeline.
func switchText(_ *scenario.Resolved, _ []sim.Node, act *scenario.ActionSpec) string {
	if act.Value.(Switch).On {
		return "cache on"
	}
	return "cache off"
}

// resolveCache gives a scenario with a [cache] table its cache: its settings, the streams
// whose reads go through it, and the times actions turn it on or off. Without the table,
// an action that switches the cache is refused.
func resolveCache(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	t, given := tableKey.In(f.Ext)
	if !given {
		for i, a := range f.Actions {
			if _, given := switchKey.In(a.Ext); given {
				c.Add(fmt.Sprintf("actions[%d].cache", i), "needs a [cache] table to turn on or off (with enabled = false it starts off)")
			}
		}
		return
	}
	k := Cache{Settings: settings(c, &t), Streams: streams(c, t.Streams, s)}
	for _, a := range s.Actions {
		if sw, ok := a.Value.(Switch); ok {
			k.Switches = append(k.Switches, sw)
		}
	}
	s.Mechanisms = append(s.Mechanisms, k)
}

// settings checks the table's values.
func settings(c *scenario.Checker, t *Table) Settings {
	var st Settings
	switch p := t.Capacity; {
	case p == nil:
		c.Add("cache.capacity", "required (the number of keys the cache holds, at least 1)")
	case *p < 1:
		c.Add("cache.capacity", "must be at least 1 (got %d)", *p)
	case *p > maxCapacity:
		c.Add("cache.capacity", "must be at most %d (got %d)", maxCapacity, *p)
	default:
		st.Capacity = *p
	}
	if !t.TTL.Set() {
		c.Add("cache.ttl", "required: how long a cached key stays fresh, a duration such as \"30s\"")
	} else if st.TTL = c.Duration("cache.ttl", t.TTL, "", 1); st.TTL > maxAge {
		c.Add("cache.ttl", "must be at most 10000d (got %q)", t.TTL)
	}
	if t.Jitter != nil {
		if j := *t.Jitter; !(j >= 0 && j <= 1) {
			c.Add("cache.jitter", "must be a fraction from 0 to 1 (got %v)", j)
		} else {
			st.Jitter = j
		}
	}
	if st.HitCost = c.Duration("cache.hit_cost", t.HitCost, defaultHitCost, 0); st.HitCost > maxHitCost {
		c.Add("cache.hit_cost", "must be at most %s (got %q)", maxHitCost, t.HitCost)
	}
	st.SingleFlight = t.SingleFlight != nil && *t.SingleFlight
	if st.StaleWhileRevalidate = c.Duration("cache.stale_while_revalidate", t.StaleWhileRevalidate, "0s", 0); st.StaleWhileRevalidate > maxAge {
		c.Add("cache.stale_while_revalidate", "must be at most 10000d (got %q)", t.StaleWhileRevalidate)
	}
	st.Off = t.Enabled != nil && !*t.Enabled
	return st
}

// streams returns the streams whose reads go through the cache, by index: those named,
// or every point read when none are.
func streams(c *scenario.Checker, names []string, s *scenario.Resolved) []int {
	var on []int
	if names == nil {
		for i, ss := range s.Streams {
			if ss.Op == sim.Read {
				on = append(on, i)
			}
		}
		return on
	}
	listed := make([]bool, len(s.Streams))
	for j, name := range names {
		key := fmt.Sprintf("cache.streams[%d]", j)
		i := s.StreamIndex(name)
		switch {
		case i < 0:
			c.Add(key, "no such stream %q (have %s)", name, strings.Join(s.StreamNames(), ", "))
		case s.Streams[i].Op != sim.Read:
			c.Add(key, "stream %q is op = %q: only point reads go through the cache", name, s.Streams[i].Op)
		case listed[i]:
			c.Add(key, "stream %q is listed twice", name)
		default:
			listed[i] = true
		}
	}
	for i, l := range listed {
		if l {
			on = append(on, i)
		}
	}
	return on
}
