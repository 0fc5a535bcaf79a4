// Package compile is the step from a validated scenario (scenario.Resolved) to a fresh sim.Model:
// field generators, the shard scheme and its placement, the range splits cut from the
// table's history, and the planners that route every stream's requests. Explain applies
// the utilization law to the same planners before any simulation.
package compile
