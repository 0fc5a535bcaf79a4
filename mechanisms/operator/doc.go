// Package operator is the operator's timed actions (docs/mitigations.md, "Operator
// actions"): a node's cores or queue limit, a stream's client-side rate limit, changed
// during the run, each noted in the alert timeline.
package operator
