package split

// Automatic splits' keys ([keyspace.split], and split_for_heat of [keyspace.limits]:
// docs/scenario.md, docs/mitigations.md "Automatic shard splits") are still declared and
// checked in scenario (scenario.SplitPolicy, its resolveSplit), which reads split_for_heat
// with the partition limits and refuses splits beside a migration, a rebalance, an index
// or a scheme that cannot split. No resolver of this folder appends the setting: each model
// routes through a splitter of its own, so compile gives each model its Split (Setting).
