// Package scenario is the scenario as plain, typed data (docs/scenario.md): the File a scenario
// decodes into, its defaults, and Validate, which gathers every problem of a file at once
// with the dotted key it concerns. Resolve turns a valid File into the Resolved form that
// package compile turns into a sim.Model; scenario also holds the one parser of durations and
// clock times.
package scenario
