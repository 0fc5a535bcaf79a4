// Package sweep answers questions about many runs: it runs a scenario over the cartesian
// product of varied keys with replications in parallel, summarizes each point with 95%
// confidence intervals, and searches for the largest load multiple that meets latency SLOs.
package sweep
