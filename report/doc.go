// Package report turns a scenario's run results into what users read: summary.json, the
// per-window CSV series, the text, markdown and CSV tables on stdout, and report.md. It only
// reads results; every file it writes is replaced atomically.
package report
