// Package trace reads access logs (a CSV with a header, the Twitter cache trace, Meta's
// key-value cache trace), plain, gzip or zstd, as a stream of records whose keys are split
// into named fields, and summarizes and replays them: Analyze for a shard-key review,
// Source for a simulation stream that takes its arrivals and key fields from a log.
//
// Readers reuse their buffers and allocate nothing per line once warm; memory is bounded
// by sketches, not by the length of the log.
package trace
