package cache

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The read cache's keys ([cache] and the cache action: docs/scenario.md, docs/mitigations.md
// "Cache") are still declared and checked in scenario (scenario.CacheSettings, its
// resolveCache, and the actions' `cache`); the resolver below turns what they resolved to
// into the cache's setting (Cache, cache.go).

func init() { scenario.RegisterMechanism(resolveCache) }

// resolveCache gives a scenario with a [cache] table its cache: its settings, the streams
// whose reads go through it, and the times actions turn it on or off.
func resolveCache(_ *scenario.Checker, _ *scenario.File, s *scenario.Resolved) {
	if s.Cache == nil {
		return
	}
	c := Cache{Settings: *s.Cache}
	for i, on := range s.CacheStreams {
		if on {
			c.Streams = append(c.Streams, i)
		}
	}
	for _, a := range s.Actions {
		if a.Kind == sim.Switch && a.Name == "cache" {
			c.Switches = append(c.Switches, Switch{At: a.At, On: a.On})
		}
	}
	s.Mechanisms = append(s.Mechanisms, c)
}
