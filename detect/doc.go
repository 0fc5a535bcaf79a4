// Package detect holds the small, bounded data structures the engine and the report use to
// find hot spots: a Space-Saving sketch of the most frequent keys, bounded per-key sums of
// sampled latencies, a KMV estimate of how many distinct partitions a stream touched, and
// the statistics of skew (Gini coefficient, median, percentiles).
//
// Every structure takes its memory when it is built and allocates nothing afterwards, so
// the event loop can feed it on every request; each is deterministic: the same inputs in
// the same order give the same state.
package detect
