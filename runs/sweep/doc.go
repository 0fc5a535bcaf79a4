// Package sweep runs a scenario over the cartesian product of varied keys (--vary), with
// replications, on the run loop (runner), and summarizes each point and variant as a Row
// of estimates over its replications (replicas), with SLO verdicts, the split rows and
// the placement check; and writes its table, sweep.csv, sweep.json and charts. Its Config,
// points and rows are what capacity searches and cluster work items build on.
package sweep
