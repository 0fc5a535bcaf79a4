// Package capacity searches for the largest multiple of a scenario's load (load_factor)
// at which every SLO holds, at every point of a sweep's axes and for every variant: each
// replication alone, every replication, and their means, sharing their runs, each run
// long enough for its hottest queue to settle (runner.Lengths) and none above the
// utilization law's limit; then it checks the answer at a fresh seed and writes its
// tables, closing line, capacity.json, CSV and charts (docs/capacity.md).
package capacity
