// Package report turns a scenario's run results into what users read: summary.json, the
// per-window CSV series, the text, markdown and CSV tables on stdout, report.md and
// report.html. It reads what compile.Describe says of the scenario (metrics.Scenario), the
// figures of metrics and the findings of diagnose, and derives none of its own; every file
// it writes is replaced atomically.
package report
