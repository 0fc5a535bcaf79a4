// Package units writes and reads the quantities people read in shardsim's outputs and
// inputs: durations, clock times, percentages, rounded figures and counts. It is the one
// place each is written; a reader that needs another way adds a style here, beside the
// others, so that two outputs never write one quantity two ways by accident.
//
// It imports nothing of the module: simulated time (Time, integer nanoseconds) is declared
// here, and the engine's clock is the same type (sim.Time). It derives no figure (metrics
// does that) and keeps no state.
package units
