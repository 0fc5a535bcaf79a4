// Package metrics is the one place that turns a run's raw sim.Result into the figures users
// read: counts and failures by cause, latency statistics, fan-out, shard and node load, skew,
// and the verdict of service-level objectives. The report, the sweeps and the capacity search
// all read these figures from here, so every output agrees with every other to the digit.
// Beside them: what the readers know of the scenario (Scenario, Variant, made by
// compile.Describe), the detection figures (HotKeysOf, HotPartitionsOf, LatencyOutliersOf),
// the spreads of load (SpreadOf, SkewSeries), the HTML report's bins (Bins), claims'
// measures (MeasureClaim) and the words every reader writes a figure in (words.go).
package metrics
