package limits

import "github.com/shardsim/shardsim/scenario"

// Partition limits' keys ([keyspace.limits]: docs/scenario.md, docs/mitigations.md
// "Partition throughput limits") are still declared and checked in scenario
// (scenario.PartitionLimits, its resolveLimits), which reads split_for_heat for its
// automatic splits and refuses limits beside a migration or a rebalance itself;
// the resolver below turns what they resolved to into the limits' setting (Limits,
// limits.go).

func init() { scenario.RegisterMechanism(resolveLimits) }

// resolveLimits gives a scenario with a [keyspace.limits] table its limits.
func resolveLimits(_ *scenario.Checker, _ *scenario.File, s *scenario.Resolved) {
	if s.Limits == nil {
		return
	}
	l := *s.Limits
	if b := l.BurstInitial; b != nil {
		bi := *b // the setting owns what it points to
		l.BurstInitial = &bi
	}
	s.Mechanisms = append(s.Mechanisms, Limits{Settings: l})
}
