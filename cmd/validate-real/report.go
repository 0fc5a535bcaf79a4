package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

type report struct {
	Out                   string `json:"-"` // the report's path
	Short                 bool
	Machine               string
	Seed                  uint64
	LoadBefore, LoadAfter string
	PGUser                string
	E1                    *exp1
	E2                    *exp2
	E3                    *exp3
	RT                    rtState // the pgbench experiments' scheduling
	E4, E5                *grid
	E6                    *openTail
	E7                    *quotaExp
	Wall                  time.Duration
	Stopped               []string
	Cgroups               []string // the cgroups made and removed
	// Repredicted says when the predictions were made again from the measurements
	// (-predict): "" when they are the measuring run's.
	Repredicted string `json:",omitempty"`
}

// checks and passed count the figures with a target: experiment 1's throughput and mean
// latency at each predicted point and its cap, experiment 2's per-node counts, experiment
// 3's cap and its p50s below 80% load.
func (r *report) checks() int {
	n := 1 + 1 + 1 // the cap, the per-node counts, the Redis cap
	for _, row := range r.E1.Rows {
		if !row.Calibration {
			n += 2
		}
	}
	for _, row := range r.E3.Rows {
		if row.Checked {
			n++
		}
	}
	m, _ := r.benchChecks()
	return n + m
}

func (r *report) passed() int {
	n := 0
	for _, row := range r.E1.Rows {
		if !row.Calibration {
			n += b2i(row.ThrWithin) + b2i(row.MeanWithin)
		}
	}
	if capWithin(r.E1) {
		n++
	}
	n += b2i(r.E2.Equal) + b2i(r.E3.CapWithin)
	for _, row := range r.E3.Rows {
		n += b2i(row.Within)
	}
	_, m := r.benchChecks()
	return n + m
}

func capWithin(e *exp1) bool {
	return e.CapPredicted > 0 && abs(e.CapMeasured/e.CapPredicted-1) <= 0.10
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func spread(m measured, f string) string {
	if m.N < 2 {
		return fmt.Sprintf(f, m.Mean)
	}
	return fmt.Sprintf(f+" ("+f+"-"+f+")", m.Mean, m.Min, m.Max)
}

// markdown is docs/validation.md: the run, each experiment with its calibration and its
// checks, and where the model and the machine differ.
func (r *report) markdown() string {
	var b md
	r.writeRun(&b)
	writeExp1(&b, r.E1, r.PGUser)
	writeExp2(&b, r.E2)
	writeExp3(&b, r.E3)
	writeExp3Rows(&b, r.E3)
	b.w("\n")
	writeGrid(&b, 4, "a row held across a wait, fsync off", r.E4, 24, 23, 22)
	writeGridBehaviours(&b, r.E4, false)
	writeOpen(&b, r.E6)
	writeGrid(&b, 5, "the same with durable commits", r.E5, 18, 15, 15)
	writeGridBehaviours(&b, r.E5, true)
	writeQuota(&b, r.E7)
	b.w(notes)
	return b.String()
}

// md is Markdown being written.
type md struct{ strings.Builder }

// w writes a formatted line or part of one.
func (b *md) w(format string, a ...any) { fmt.Fprintf(b, format, a...) }

// writeRun writes the title, what the command does, and this run's version, machine, load
// and checks.
func (r *report) writeRun(b *md) {
	version := "full (`make validate-real`)"
	if r.Short {
		version = "short (`make validate-real-short`, as CI runs it)"
	}
	b.w("# Validation against real databases\n\n")
	b.w("<!-- Written by cmd/validate-real (make validate-real); do not edit by hand. -->\n\n")
	b.w("shardsim's figures beside a real PostgreSQL and a real Redis, measured on this machine\n")
	b.w("by `make validate-real`: it installs Debian's `postgresql` and `redis-server` when they are\n")
	b.w("missing, starts the servers in a temporary directory, drives them with real clients\n")
	b.w("(jackc/pgx, redis/go-redis, pgbench, redis-benchmark), runs the matching shardsim scenarios\n")
	b.w("with `shardsim run`, writes this file and stops every server it started by its pid (and\n")
	b.w("removes the CPU cgroup it made, by its path). Experiments 4 to 7 measure what issue 49\n")
	b.w("describes: a hot row held across a wait, with and without durable commits, and Redis under a\n")
	b.w("CPU quota; their models use the four mechanisms built for what those measurements showed (the\n")
	b.w("row's grant order `lock_grant`, the waiters' cost to the holder `lock_wake_cost`, the commit\n")
	b.w("flush `commit_flush` with `lock_release`, an event loop's wake-ups `wakeup_cost`:\n")
	b.w("docs/mitigations.md). The predictions use only the calibration inputs listed with each\n")
	b.w("experiment, measured separately from the figures they predict. `make validate-predict` makes\n")
	b.w("every prediction again from the measurements of the data file, with the model of the day and\n")
	b.w("no server.\n\n")
	b.w("## This run\n\n")
	b.w("- Version: %s, wall time %.0f s, seed %d.\n", version, r.Wall.Seconds(), r.Seed)
	b.w("- Machine: %s.\n", r.Machine)
	b.w("- Load average (1, 5, 15 min) before: %s; after: %s. The machine is shared: other programs'\n", r.LoadBefore, r.LoadAfter)
	b.w("  builds and tests ran during the measurements, and the load generator runs on the same cores\n")
	b.w("  as the servers, so every figure includes their competition for the CPU.\n")
	b.w("- Checks within their targets: %d of %d.\n", r.passed(), r.checks())
	b.w("- Servers stopped at the end: %s.\n", strings.Join(r.Stopped, ", "))
	if len(r.Cgroups) > 0 {
		b.w("- Cgroups removed at the end: %s.\n", strings.Join(r.Cgroups, ", "))
	}
	if !r.RT.On {
		b.w("- **Not at real-time priority**: %s (figures marked †).\n", r.RT.Note)
	}
	if r.E7 != nil && r.E7.Skipped != "" {
		b.w("- **Skipped**: experiment 7 (Redis under a CPU quota): %s.\n", r.E7.Skipped)
	}
	b.w("- The raw measurements of every point are in `%s` beside this file.\n", filepath.Base(dataPath(r.Out)))
	if r.Repredicted != "" {
		b.w("- The predictions were made again from these measurements by `validate-real -predict` (%s),\n", r.Repredicted)
		b.w("  without the servers: experiment 2's is the measuring run's.\n")
	}
	b.w("\n")
	r.writeTargets(b)
}

// writeExp1 writes experiment 1: the setup, its calibration, and each point measured
// against its prediction; pgUser is the OS user the server ran as.
func writeExp1(b *md, e *exp1, pgUser string) {
	b.w("## Experiment 1: a hot counter row (PostgreSQL)\n\n")
	b.w("`UPDATE counters SET n = n + 1 WHERE id = $1` (prepared) from C closed-loop clients, each on\n")
	b.w("its own connection, on a row drawn at random from B rows (a salted counter: B = 1 is one hot\n")
	b.w("row). Each point runs %s of warm-up and %s measured, %d time(s), the repeats going round the\n", e.Warm, e.Span, e.Reps)
	b.w("whole grid; the figures are the median of the repeats with their range in brackets.\n\n")
	b.w("The server runs as the OS user `%s` (PostgreSQL refuses to run as root; when this command\n", pgUser)
	b.w("runs as root it uses the `postgres` account of Debian's package), on a Unix socket, with\n")
	b.w("`%s`: no disk flush at commit, so the row lock is held for the update's and the\n", strings.Join(pgSettings, "`, `"))
	b.w("commit's CPU work rather than for a disk's flush, which would differ from disk to disk and\n")
	b.w("with whatever else writes to it; autovacuum is off and the table is vacuumed before each\n")
	b.w("point instead. A durable setup (`synchronous_commit = on`) holds each row lock through the WAL\n")
	b.w("flush: the same model applies with that flush in the lock hold, calibrated the same way.\n\n")
	b.w("Calibration (two measurements only):\n\n")
	b.w("- 32 clients on one row: %.0f updates/s, so `lock` = 1 / that = **%.1f us**.\n", e.CapMeasured, e.LockUs)
	b.w("- 1 client on one row: mean latency %.3f ms, so `cost` = that - lock = **%.1f us** (network\n", e.L1Us/1000, e.CostUs)
	b.w("  left at 0: cost holds the client's and the socket's time too).\n")
	if e.Inconsistent {
		b.w("- **The two calibration points disagree**: one client's whole update took less than the hold that\n")
		b.w("  32 clients' throughput implies, so the row was held longer under contention than alone (see\n")
		b.w("  below); cost was set to 1 us and the predictions inherit the disagreement.\n")
	}
	b.w("- The model: one node with %d cores (the machine's), `clients = C`, `think = \"0s\"`,\n", e.Cores)
	b.w("  `salt = B` (random), constant `cost` and `lock`; 40 s simulated, the first 5 s left out.\n\n")
	b.w("| C | B | measured updates/s | predicted | ratio | within 15%% | measured mean ms | predicted | ratio | within 15%% |\n")
	b.w("|---:|---:|---:|---:|---:|---|---:|---:|---:|---|\n")
	for _, row := range e.Rows {
		mark := func(ok bool) string {
			if row.Calibration {
				return "calibration"
			}
			return yes(ok)
		}
		b.w("| %d | %d | %s | %.0f | %.2f | %s | %s | %.3f | %.2f | %s |\n", row.C, row.B, spread(row.Thr, "%.0f"), row.PredThr, row.ThrRatio, mark(row.ThrWithin),
			spread(row.Mean, "%.3f"), row.PredMean, row.MeanRatio, mark(row.MeanWithin))
	}
	b.w("\nSingle-row cap: measured %.0f updates/s, predicted %.0f, ratio %.2f, within 10%%: %s (32 clients on one\n", e.CapMeasured, e.CapPredicted, e.CapMeasured/e.CapPredicted, yes(capWithin(e)))
	b.w("row is a calibration point: this checks that the model reaches the cap its lock implies).\n\n")

}

// writeExp2 writes experiment 2: the setup, and each node's measured calls against the
// replay's operations.
func writeExp2(b *md, e *exp2) {
	b.w("## Experiment 2: hash slots (Redis Cluster)\n\n")
	b.w("Three Redis nodes in cluster mode on loopback ports, joined by `redis-cli --cluster create`\n")
	b.w("(masters only). The load generator sends %d commands (90%% GET, 10%% SET) through go-redis's\n", e.Run.Commands)
	b.w("cluster client, in pipelines of 100, on keys drawn from a Zipf law (s = 0.99) over %d keys;\n", e.Run.Keys)
	b.w("one key id in ten is written with a hash tag (`user:{g7}:12345`, 500 tags), the rest plain\n")
	b.w("(`key:12345`); %d distinct tagged keys were sent. It writes every command to a trace as it\n", e.Run.Tagged)
	b.w("sends it, and `shardsim run` replays the trace under `scheme = \"redis_cluster\"` with the\n")
	b.w("cluster's own slot ranges, read from `CLUSTER SHARDS`, each range's shard placed on its node.\n")
	b.w("The measured counts are each node's GET and SET calls from `INFO commandstats` (reset before\n")
	b.w("the run with `CONFIG RESETSTAT`); the predicted are the replay's operations per node.\n\n")
	b.w("| node | slot ranges | GET+SET calls (INFO commandstats) | replay's ops | equal |\n")
	b.w("|---:|---|---:|---:|---|\n")
	for n := range e.Run.NodeCalls {
		var rs []string
		for _, sr := range e.Run.Ranges {
			if sr.Node == n {
				rs = append(rs, fmt.Sprintf("%d-%d", sr.First, sr.Last))
			}
		}
		b.w("| %d | %s | %d | %d | %s |\n", n, strings.Join(rs, ", "), e.Run.NodeCalls[n], e.SimOps[n], yes(e.Run.NodeCalls[n] == e.SimOps[n]))
	}
	b.w("\nEvery node's count equal: %s.\n\n", yes(e.Equal))

}

// writeExp3 writes experiment 3's setup, its calibration and its cap.
func writeExp3(b *md, e *exp3) {
	b.w("## Experiment 3: a hot key saturating its node (Redis)\n\n")
	b.w("`INCR hot` on one key (node %d), Poisson arrivals at increasing rates from an open-loop\n", e.Node)
	b.w("generator (a pool of 256 workers; each latency is measured from the request's arrival\n")
	b.w("time), %s measured after %s of warm-up, %d time(s) a rate.\n\n", e.Span, e.Warm, e.Reps)
	b.w("Calibration, at %.0f commands/s (low load):\n\n", e.LowRate)
	b.w("- `cost` = the node's CPU time per command (user + system from `INFO cpu`, less its idle use\n")
	b.w("  of %s core measured just before with no commands, over the INCR calls of\n", spread(e.Idle, "%.4f"))
	b.w("  `INFO commandstats`): **%s us**.\n", spread(e.CostUs, "%.1f"))
	b.w("- Median latency %s ms; `network` = (median - cost) / 2 = **%.1f us** each way.\n", spread(e.LowP50, "%.3f"), e.NetUs)
	b.w("- The model: one node with one core (Redis runs commands on one thread), constant `cost`,\n")
	b.w("  Poisson arrivals; 40 s simulated, the first 5 s left out.\n\n")
	b.w("Throughput cap: %d closed-loop clients measured %s INCR/s (the node's CPU use meanwhile\n", e.CapClients, spread(e.Cap, "%.0f"))
	b.w("%s of a core); the model with the same clients predicts %.0f/s; ratio %.2f, within 15%%: %s.\n", spread(e.CapCPU, "%.2f"), e.CapPredicted, e.CapRatio, yes(e.CapWithin))
	if e.Cap.Mean > 0 {
		b.w("At the cap the node spent %.1f us of CPU a command (its CPU use over its throughput), against\n", e.CapCPU.Mean/e.Cap.Mean*1e6)
		b.w("%.1f us at the low rate.\n", e.CostUs.Mean)
	}
	if !e.Saturated {
		b.w("The node was not saturated (it used less than 0.85 of its core): the clients, which share the\n")
		b.w("machine's cores with it, could not send faster, so this run did not measure the node's cap and\n")
		b.w("the check counts as missed whatever the ratio.\n")
	}
	b.w("\n")
}

// writeExp3Rows writes experiment 3's rates measured against the model, and a warning
// when the node was never busy at a checked rate.
func writeExp3Rows(b *md, e *exp3) {
	b.w("The client delay is the median time from a request's arrival to a worker sending it: where it\n")
	b.w("is a large part of the p50, the load generator, not the node, is what the latency measures.\n\n")
	b.w("| offered /s | share of the clients' measured cap | completed /s | node CPU (cores) | client delay p50 ms | measured p50 ms | predicted p50 ms | ratio | within 20%% (below 80%% load) |\n")
	b.w("|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, row := range e.Rows {
		pred, ratio, ok := "past the model's cap", "", "not checked"
		if row.PredP50 > 0 {
			pred, ratio = fmt.Sprintf("%.3f", row.PredP50), fmt.Sprintf("%.2f", row.P50Ratio)
		}
		if row.Checked {
			ok = yes(row.Within)
			if !row.Within && row.Lag.Mean > row.P50.Mean/2 {
				ok += " (client-bound)"
			}
		}
		b.w("| %.0f | %.0f%% | %s | %s | %s | %s | %s | %s | %s |\n", row.Rate, row.Load*100, spread(row.Thr, "%.0f"), spread(row.CPU, "%.2f"), spread(row.Lag, "%.3f"), spread(row.P50, "%.3f"), pred, ratio, ok)
	}
	busiest := 0.0
	for _, row := range e.Rows {
		if row.Checked {
			busiest = max(busiest, row.CPU.Mean)
		}
	}
	if busiest < 0.5 {
		b.w("\nAt every checked rate the node used at most %.2f of its core: those p50s are mostly the\n", busiest)
		b.w("calibrated network delay, so where they agree they confirm the calibration, not the model's\n")
		b.w("queue; the node itself was never near 80%% of its cap, which this machine's clients could not\n")
		b.w("reach.\n")
	}
}

// notes says which differences the machine's noise or the model's simplifications explain.
const notes = `## Where the model and the machine differ

- **One machine for clients and servers, shared with other work.** The load generator, the
  servers and whatever else the machine runs share its cores; the load average above counts
  the runnable tasks. shardsim's node has its cores to itself and its clients cost nothing.
  On a machine whose load average is many times its cores, every wake-up waits for a core:
  a lone client and its server process sleep and wake on every update, so one client's
  latency is mostly that wait, while two or more keep the cores busy and wait less per
  update. That is the likely reason why a few clients can do several times the updates of one, which the
  model (whose one-client latency is the calibration) cannot follow, and why the repeats of
  one point spread so widely. Compare runs by their load average.
- **PostgreSQL's lock hold is not constant.** A backend that holds the row's lock can lose
  its core to another of the 32 clients' processes before it commits; the lock stays held
  while it waits (lock-holder preemption), and every waiter, on granting, also re-reads
  the newest version of the row. The hold calibrated at 32 clients includes those waits,
  so fewer clients see a shorter hold than the model's. With fsync and synchronous_commit
  on, the WAL flush would be part of the hold too, and would dominate it on most disks.
- **Redis's cost per command falls with load.** At a low rate every command costs the node
  a wake-up of its event loop; under load one turn reads and answers many clients, so the
  CPU per command falls (compare the node's CPU per command at the low rate with its CPU
  use over its throughput at the cap). Experiment 3's model has one constant cost, so it
  puts the cap too low (experiment 7's has the wake-ups), and the node's real cap can only be seen with a client that outruns it, which on
  a shared two-core machine it does not: the node's CPU column shows how far from busy it
  stayed.
- **The open-loop generator's own delay.** Each request's latency counts from its arrival
  time; when the generator falls behind (its timer wakes late, its workers wait for a
  core), that delay is in the measured p50 (the client delay column), not in the node.
  Rows marked client-bound are misses of the load generator, not of the model.
- **Hash slots are exact.** Experiment 2 has no noise: the slot of every key is the same
  function in Redis and in shardsim, so any difference there is a bug.
`
