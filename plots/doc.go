// Package plots draws shardsim's charts with gonum/plot: per-shard heat over time, shard
// load bars of several variants, p99 latency over time and latency CDFs. It takes plain
// data (no simulation types) and writes PNG or SVG files atomically.
//
// Each Write function validates its input first and returns an error (never panics)
// on empty or inconsistent data, writing nothing; otherwise it renders into memory and
// writes a temporary file in the target's directory that it renames over the target, so
// a reader never sees a partial chart.
//
// Sizes are fixed per chart (see HeatWidth and the other constants): PNG at DPI 96,
// SVG of the same size in CSS pixels. Text is Liberation Sans (Arial metrics): 16 pt
// titles, 13 pt axis labels, 11 pt ticks and legends.
//
// The heat palette is sequential and darkens monotonically with load: cream (0%),
// yellow, orange, red, dark crimson (at and above Heat.Max), ColorBrewer's YlOrRd
// extended at the dark end, so a shard at 100% is unmistakable next to shards at 15%,
// and every heat chart uses the same scale so variants compare.
package plots
